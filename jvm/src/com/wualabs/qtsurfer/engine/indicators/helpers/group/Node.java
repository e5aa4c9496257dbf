package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.SmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.ReadOnlyRTIndicator;

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

    private static final byte GENERIC = 0;
    private static final byte VALUE = 1;
    private static final byte SMA = 2;
    private static final byte EMA = 3;
    private static final byte BINARY = 4;

    final String name;
    final RTIndicator ind;
    final byte kind;
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

    private Node(String name, RTIndicator ind, byte kind, int field, Node src) {
        this.name = name;
        this.ind = ind;
        this.kind = kind;
        this.field = field;
        this.src = src;
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

    /** Advances this node with the event in {@code f}. */
    void step(EventFrame f) {
        switch (kind) {
            case FIELD:
                feed(f.get(field));
                return;
            case CHAIN:
                feed(src.value);
                return;
            case BAR:
                double v = bar.updateBar(f.barOpen, f.barHigh, f.barLow, f.barClose, f.barVolume);
                value = trusted ? v : bar.getValue();
                return;
            default:
                value = impl == BINARY ? ((Ops.Binary) derived).refresh() : derived.refresh();
        }
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
            r = ind.ro();
            ro = r;
        }
        return r;
    }
}
