package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.SmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.ReadOnlyRTIndicator;
import com.wualabs.qtsurfer.engine.internal.RunSeries;

import java.util.function.Supplier;

/**
 * One registered indicator in a group's update order, plus how it is fed. {@link #value} caches the
 * indicator's value after this event's step; dependents and windows read it without a virtual call.
 *
 * <p>One final class with a {@link #kind} tag instead of a subclass per kind: {@link #step} runs once per
 * node and event, and a call through a tag is a predictable branch where a virtual call over the kinds
 * of one group is megamorphic (an indirect call the JIT cannot inline). Likewise {@link #impl} names the
 * built-in indicators fed most often (final classes): the call goes straight to their own
 * {@code update}, which the JIT can inline however many other indicator types the JVM has seen.
 * Either way the same methods run with the same arguments, so values are bit for bit the same.
 */
final class Node {

    /** Fed from a field of the event (or its primary value). */
    static final byte FIELD = 0;
    /** Fed from another node's value. */
    static final byte CHAIN = 1;
    /** Fed the event's bar (see {@link BarRTIndicator}). */
    static final byte BAR = 2;
    /** Computed from other nodes' values. */
    static final byte DERIVED = 3;
    /** A FIELD or CHAIN node whose values come from a precomputed series (see {@link #replay}). */
    private static final byte REPLAY = 4;
    /**
     * A node its group does not step at all (see {@code InstrumentGroupRTIndicator#stepAll}): a replaying one
     * reads its series at {@link EventFrame#done}, a pure operation over such nodes computes its value from
     * theirs when read ({@link #now}).
     */
    private static final byte LAZY = 5;

    private static final byte GENERIC = 0;
    private static final byte VALUE = 1;
    private static final byte SMA = 2;
    private static final byte EMA = 3;
    private static final byte BINARY = 4;

    final String name;
    /** The indicator; outside {@link #step} read it through {@link #ind()}, which brings it up to date. */
    private final RTIndicator ind;
    final byte kind;
    /** How {@link #step} advances the node: {@link #kind}, or {@link #REPLAY}. */
    private byte mode;
    private final byte impl;
    /** True when {@code ind.update(x)} is known to return the new value (built-ins). */
    final boolean trusted;
    /** FIELD: the {@link EventFrame} field code. */
    final int field;
    /** CHAIN: the node whose value feeds this one. */
    final Node src;
    private final BarRTIndicator bar;
    private final Derived derived;
    double value = Double.NaN;
    private RTIndicator ro;
    /**
     * For an indicator the group built itself from a data field (an {@code sma} or {@code ema} of
     * the price, say): names its class and parameters, and {@link #fresh} builds another one like
     * it, so that its values can be computed ahead of the events ({@link RunSeries}).
     */
    String seriesKey;
    Supplier<RTIndicator> fresh;
    /** True once code outside the step may hold the indicator: its series is never used then. */
    private boolean handedOut;
    // REPLAY: the series, the field it was computed from, and how many events were stepped.
    private double[] series;
    private RunSeries seriesSource;
    private int seriesField;
    private int stepped;
    /** The group that appended this node and its frame ({@link #now} of a LAZY node). */
    InstrumentGroupRTIndicator group;
    EventFrame frame;

    private Node(String name, RTIndicator ind, byte kind, int field, Node src) {
        this.name = name;
        this.ind = ind;
        this.kind = kind;
        this.field = field;
        this.src = src;
        this.mode = kind;
        this.bar = kind == BAR ? (BarRTIndicator) ind : null;
        this.derived = kind == DERIVED ? (Derived) ind : null;
        this.trusted = ind instanceof BaseRTIndicator || ind instanceof ReadOnlyRTIndicator || ind instanceof Derived;
        this.impl = implOf(ind);
    }

    /** Fed from field {@code field} of the event ({@link EventFrame#PRIMARY} for the primary value). */
    static Node field(String name, RTIndicator ind, int field) {
        return new Node(name, ind, FIELD, field, null);
    }

    /** Fed from {@code src}'s value. */
    static Node chain(String name, RTIndicator ind, Node src) {
        return new Node(name, ind, CHAIN, 0, src);
    }

    /** Fed the event's bar. */
    static Node bar(String name, BarRTIndicator ind) {
        return new Node(name, ind, BAR, 0, null);
    }

    /** Computed from other nodes. */
    static Node derived(String name, Derived ind) {
        return new Node(name, ind, DERIVED, 0, null);
    }

    private static byte implOf(RTIndicator ind) {
        Class<?> c = ind.getClass();
        if (c == Ops.ValueIndicator.class) {
            return VALUE;
        }
        if (c == SmaRTIndicator.class) {
            return SMA;
        }
        if (c == EmaRTIndicator.class) {
            return EMA;
        }
        if (c == Ops.Binary.class) {
            return BINARY;
        }
        return GENERIC;
    }

    /** True when stepping this node reads a kline field besides the close ({@link EventFrame#klineDetail}). */
    boolean readsKlineDetail() {
        return kind == BAR || (kind == FIELD && EventFrame.klineDetail(field));
    }

    /** True when stepping this node reads a ticker field besides the last price ({@link EventFrame#tickerDetail}). */
    boolean readsTickerDetail() {
        return kind == BAR || (kind == FIELD && EventFrame.tickerDetail(field));
    }

    /** Advances this node with the event in {@code f}. */
    void step(EventFrame f) {
        switch (mode) {
            case FIELD:
                feed(f.get(field));
                return;
            case LAZY: // not reached: a group with LAZY nodes steps none (stepAll)
                group.exitLazy();
                step(f);
                return;
            case CHAIN:
                feed(src.value);
                return;
            case BAR:
                double v = bar.updateBar(f.barOpen, f.barHigh, f.barLow, f.barClose, f.barVolume);
                value = trusted ? v : bar.getValue();
                return;
            case REPLAY:
                int e = f.index;
                double[] s = series;
                if (e >= 0 && e < s.length && e == stepped) {
                    value = s[e];
                    stepped = e + 1;
                    return;
                }
                endReplay(); // events the series does not cover: step the indicator itself
                step(f);
                return;
            default:
                value = impl == BINARY ? ((Ops.Binary) derived).refresh() : derived.refresh();
        }
    }

    /**
     * The field whose values alone feed this node, or {@code null}: a FIELD node, or a CHAIN node
     * fed by a plain field node (whose value is the frame's field at every event).
     */
    Integer dataField() {
        if (kind == FIELD) {
            return field;
        }
        if (kind == CHAIN && src.kind == FIELD && src.impl == VALUE && (src.mode == FIELD || src.mode == REPLAY)) {
            return src.field;
        }
        return null;
    }

    /**
     * From the next event on, takes this node's values from {@code s} (computed from field
     * {@code code} of {@code source}, held for a CHAIN node) instead of stepping the indicator;
     * only before the first event, and only for an indicator the group built and nobody else was
     * handed.
     *
     * @return true when the node replays the series
     */
    boolean replay(double[] s, RunSeries source, int code) {
        if (!canReplay()) {
            return false;
        }
        series = s;
        seriesSource = source;
        seriesField = code;
        stepped = 0;
        mode = REPLAY;
        return true;
    }

    /**
     * Whether this node may go unstepped while its group's nodes are all LAZY: it replays a series
     * (not stepped yet), or it is a pure operation of two such nodes ({@link Ops.Binary#pure}; of
     * replaying nodes only, so that reading its value is two array reads and no recursion the JIT
     * would leave as calls).
     */
    boolean canBeLazy() {
        if (mode == REPLAY) {
            return stepped == 0;
        }
        if (mode != DERIVED || handedOut || impl != BINARY) {
            return false;
        }
        Ops.Binary op = (Ops.Binary) derived;
        return op.pure() && op.a.mode == REPLAY && op.b.mode == REPLAY;
    }

    /** Stops being stepped ({@link #canBeLazy} holds for it and every node it reads). */
    void toLazy() {
        mode = LAZY;
    }

    /**
     * Steps again from the next event, holding what stepping it every event would have left: a
     * replaying node the series' value and the count of events, a derived one its value computed
     * by its indicator from its operands (which the group brought back before it).
     */
    void fromLazy() {
        if (mode != LAZY) {
            return;
        }
        if (kind == DERIVED) {
            double v = derived.refresh();
            mode = DERIVED;
            value = v;
            return;
        }
        value = replayedValue();
        stepped = frame.done;
        mode = REPLAY;
    }

    boolean isLazy() {
        return mode == LAZY;
    }

    /** A LAZY node's own series (the values it replays), or null (not LAZY, or an operation). */
    double[] lazySeries() {
        return mode == LAZY && kind != DERIVED ? series : null;
    }

    /** A LAZY operation's indicator (its operands replay series), or null. */
    Ops.Binary lazyOperation() {
        return mode == LAZY && kind == DERIVED ? (Ops.Binary) derived : null;
    }

    /** The value after the last step, as {@link #value} holds it for a node that is stepped. */
    double now() {
        return mode == LAZY ? lazyValue() : value;
    }

    private double lazyValue() {
        if (kind != DERIVED) {
            if (kind == FIELD && impl == VALUE) {
                // A plain field node holds the field's latest non-NaN value: after the step, the frame's
                // own, read there rather than in the series, where a read now and then (a listener's
                // emit price) misses the cache (1.7 of 11 ns a row on the sweep grid).
                int d = frame.done;
                if (d > 0 && frame.index == d - 1) {
                    double x = frame.get(field);
                    if (x == x) {
                        return x;
                    }
                }
            }
            return replayedValue();
        }
        Ops.Binary op = (Ops.Binary) derived;
        return valueAt(op.a.series, op.b.series, op, frame.done);
    }

    private double replayedValue() {
        return valueAt(series, null, null, frame.done);
    }

    /**
     * A LAZY node's value after {@code done} events: its own series' value ({@code op} null), or operation
     * {@code op} over its operands' series {@code xs} and {@code ys}; NaN before the first event.
     * {@code LazyRows} passes arrays it holds in locals.
     */
    static double valueAt(double[] xs, double[] ys, Ops.Binary op, int done) {
        if (done <= 0) {
            return Double.NaN;
        }
        return op == null ? xs[done - 1] : op.of(xs[done - 1], ys[done - 1]);
    }

    /** Whether {@link #replay} would take a series (asked before one is computed). */
    boolean canReplay() {
        return !handedOut && fresh != null && mode == kind && (kind == FIELD || kind == CHAIN);
    }

    /**
     * Ends replay, if any, without handing the indicator out: feeds the indicator the field's values of every event stepped so far (what it
     * would have been fed), so that it holds exactly the state it would have had, and steps it
     * from now on.
     */
    void endReplay() {
        if (mode == LAZY) {
            group.exitLazy();
        }
        if (mode != REPLAY) {
            return;
        }
        mode = kind;
        RunSeries source = seriesSource;
        series = null;
        seriesSource = null;
        double v = source.feed(ind, seriesField, kind == CHAIN, stepped);
        if (Double.doubleToRawLongBits(v) != Double.doubleToRawLongBits(value)) {
            throw new IllegalStateException("engine error: indicator '" + name + "' replayed " + value
                    + " but its own state gives " + v);
        }
    }

    /** The indicator, up to date, for code outside the step (which may then hold it). */
    RTIndicator ind() {
        handedOut = true;
        endReplay();
        return ind;
    }

    /** The indicator as registered, for type and identity checks only (its state may lag). */
    RTIndicator registered() {
        return ind;
    }

    /** The current value, as {@code ind().getValue()}, without ending replay. */
    double currentValue() {
        return mode == REPLAY ? value : mode == LAZY ? lazyValue() : ind.getValue();
    }

    /** {@code ind().isReady()}. */
    boolean isReady() {
        return ind().isReady();
    }

    /** Feeds one input: a NaN input is skipped (the indicator is left unchanged). */
    void feed(double x) {
        if (x != x) {
            return;
        }
        // The built-ins' update is BaseRTIndicator's final update and returns the new value.
        switch (impl) {
            case VALUE:
                value = ((Ops.ValueIndicator) ind).update(x);
                return;
            case SMA:
                value = ((SmaRTIndicator) ind).update(x);
                return;
            case EMA:
                value = ((EmaRTIndicator) ind).update(x);
                return;
            default:
                double v = ind.update(x);
                value = trusted ? v : ind.getValue();
        }
    }

    RTIndicator ro() {
        RTIndicator r = ro;
        if (r == null) {
            r = ind().ro();
            ro = r;
        } else {
            ind(); // the view reads the indicator: it must be up to date
        }
        return r;
    }
}
