package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.SmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.bollinger.BollingerRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.distance.RateChangeRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.momentum.RsiRTIndicator;
import com.wualabs.qtsurfer.engine.internal.RunSeries;
import com.wualabs.qtsurfer.engine.strategy.AbstractRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.GainRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.LossRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;
import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.DoublePredicate;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One instrument's indicators, built in {@code setupIndicators} with chained calls and advanced once per
 * data event. Every indicator is published under a name; other indicators, windows and readers refer to it
 * by that name. Indicators update in registration order, each with its source's value of the same event.
 *
 * <p>Default names: {@code sma(20)} → {@code sma20}, {@code ema(9)} → {@code ema9}, {@code rsi(14)} →
 * {@code rsi14}, {@code bollinger(20, 2)} → {@code blgr20_2} (+ {@code Upper}/{@code Lower}); calls taking a
 * source name append it capitalised ({@code percentChange("price")} → {@code percentChangePrice}); see
 * docs/strategy-semantics.md. {@link #lastRegisteredName()} returns the name the latest call published.
 */
public final class InstrumentGroupRTIndicator {

    private static final int PRIMARY = EventFrame.PRIMARY;

    private final AbstractStrategy owner;
    private final Instrument instrument;
    final EventFrame frame = new EventFrame();

    private Node[] nodes = new Node[8];
    private int nodeCount;
    final WindowSet windows = new WindowSet(this);
    /**
     * True once a node reads a kline field besides the close (open, high, low, volume, the bar): until
     * then a kline fed from columns ({@link GroupDriver#kline(InstrumentGroupRTIndicator, long, long, double[],
     * double[], double[], double[], double[], int)}) reads only its close column. Never reset: nodes stay.
     */
    boolean klineDetail;
    /** As {@link #klineDetail}, for tickers: a node reads the bid, the ask, their sizes, the volume or the bar. */
    boolean tickerDetail;
    /**
     * True while no node is stepped: every one replays a series or is a pure operation over such
     * nodes (LAZY, see {@link #useSeries}), up to event {@link #lazyEnd} (exclusive), the series' end.
     */
    boolean lazy;
    int lazyEnd;
    /** Events taken while LAZY, recorded when the group left that mode ({@link #steplessEvents}). */
    private int stepless;
    private final LinkedHashMap<String, Node> byName = new LinkedHashMap<>();
    /** How many names {@link #require} remembers by reference (a power of two). */
    private static final int RECENT = 4;
    private final String[] recentNames = new String[RECENT];
    private final Node[] recentNodes = new Node[RECENT];
    private int recentNext;
    private Node primaryNode;
    private String lastName;
    private StateStore store;

    public InstrumentGroupRTIndicator(AbstractStrategy owner, Instrument instrument) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.instrument = Objects.requireNonNull(instrument, "instrument");
    }

    /** The instrument this group belongs to. */
    public Instrument getInstrument() {
        return instrument;
    }

    // ------------------------------------------------------------------ sources

    /** Publishes {@code price}: the last price on tickers, the close on klines, the mark price on funding. */
    public InstrumentGroupRTIndicator addPrice() {
        return add("price", TickerValueSource.Close);
    }

    /** Publishes {@code rate}: the funding rate (NaN, so never ready, on ticker and kline data). */
    public InstrumentGroupRTIndicator addRate() {
        return add("rate", TickerValueSource.Rate);
    }

    /** Publishes a raw field of the incoming event. Re-registering the same field under the same name is a no-op. */
    public InstrumentGroupRTIndicator add(String name, TickerValueSource source) {
        Objects.requireNonNull(source, "source");
        Node old = byName.get(name);
        if (old != null && old.kind == Node.FIELD && old.field == source.ordinal()
                && old.registered() instanceof Ops.ValueIndicator) {
            lastName = name;
            return this;
        }
        return publish(name, precomputable(Node.field(name, new Ops.ValueIndicator(), source.ordinal()), "value",
                Ops.ValueIndicator::new), false);
    }

    /**
     * Publishes any indicator instance. It is fed the event's bar when it is a {@link BarRTIndicator} that
     * wants bars, otherwise the event's primary value (ticker last, kline close, funding rate); an indicator
     * built over a source indicator reads that source instead.
     */
    public InstrumentGroupRTIndicator add(String name, RTIndicator indicator) {
        Objects.requireNonNull(indicator, "indicator");
        Node n;
        if (indicator instanceof BarRTIndicator && ((BarRTIndicator) indicator).wantsBars()) {
            n = Node.bar(name, (BarRTIndicator) indicator);
        } else {
            n = Node.field(name, indicator, PRIMARY);
        }
        return publish(name, n, false);
    }

    // ------------------------------------------------------------------ moving averages

    public InstrumentGroupRTIndicator sma(int periods) {
        return sma("sma" + periods, periods);
    }

    public InstrumentGroupRTIndicator sma(String name, int periods) {
        return sma(name, periods, true);
    }

    /** {@code discrete = false} selects the continuous mode (expanding mean during warm-up). */
    public InstrumentGroupRTIndicator sma(String name, int periods, boolean discrete) {
        return publish(name, precomputable(fromPrice(name, new SmaRTIndicator(periods, discrete)),
                "sma:" + periods + ":" + discrete, () -> new SmaRTIndicator(periods, discrete)), false);
    }

    public InstrumentGroupRTIndicator sma(String name, String source, int periods) {
        return publish(name, precomputable(Node.chain(name, new SmaRTIndicator(periods), require(source)),
                "sma:" + periods + ":true", () -> new SmaRTIndicator(periods)), false);
    }

    public InstrumentGroupRTIndicator ema(int periods) {
        return ema("ema" + periods, periods);
    }

    public InstrumentGroupRTIndicator ema(String name, int periods) {
        return publish(name, precomputable(fromPrice(name, new EmaRTIndicator(periods)),
                "ema:" + periods, () -> new EmaRTIndicator(periods)), false);
    }

    public InstrumentGroupRTIndicator ema(String name, String source, int periods) {
        return publish(name, precomputable(Node.chain(name, new EmaRTIndicator(periods), require(source)),
                "ema:" + periods, () -> new EmaRTIndicator(periods)), false);
    }

    // ------------------------------------------------------------------ oscillators

    /** Cutler's RSI of price, published as {@code rsi<periods>}. */
    public InstrumentGroupRTIndicator rsi(int periods) {
        return rsi("rsi" + periods, periods, true);
    }

    /** {@code cutler = false} selects Wilder's smoothing; published as {@code rsi<periods>}. */
    public InstrumentGroupRTIndicator rsi(int periods, boolean cutler) {
        return rsi("rsi" + periods, periods, cutler);
    }

    public InstrumentGroupRTIndicator rsi(String name, int periods) {
        return rsi(name, periods, true);
    }

    public InstrumentGroupRTIndicator rsi(String name, int periods, boolean cutler) {
        return publish(name, fromPrice(name, new RsiRTIndicator(periods, cutler)), false);
    }

    /** RSI of another indicator. */
    public InstrumentGroupRTIndicator rsi(String name, String source, int periods, boolean cutler) {
        return publish(name, Node.chain(name, new RsiRTIndicator(periods, cutler), require(source)), false);
    }

    /** Bollinger bands published as {@code blgr<periods>_<k>} plus {@code ...Upper} / {@code ...Lower}. */
    public InstrumentGroupRTIndicator bollinger(int periods, double k) {
        return bollinger("blgr" + periods + "_" + formatNumber(k), periods, k);
    }

    /** Bollinger bands: {@code name} is the middle band, {@code name + "Upper"} / {@code name + "Lower"} the bands. */
    public InstrumentGroupRTIndicator bollinger(String name, int periods, double k) {
        checkName(name);
        BollingerRTIndicator bands = new BollingerRTIndicator(periods, k);
        Node middle = fromPrice(name, bands);
        publish(name, middle, false);
        publish(name + "Upper", Node.derived(name + "Upper", new Ops.Band(bands, true)), false);
        publish(name + "Lower", Node.derived(name + "Lower", new Ops.Band(bands, false)), false);
        lastName = name;
        return this;
    }

    /** Width of a registered Bollinger band in percent, published as {@code <bollingerName>Bandwidth}. */
    public InstrumentGroupRTIndicator bollingerBandwidth(String bollingerName) {
        return bollingerBandwidth(bollingerName + "Bandwidth", bollingerName);
    }

    public InstrumentGroupRTIndicator bollingerBandwidth(String name, String bollingerName) {
        Ops.Bandwidth bw = new Ops.Bandwidth(require(bollingerName), require(bollingerName + "Upper"),
                require(bollingerName + "Lower"));
        return publish(name, Node.derived(name, bw), false);
    }

    // ------------------------------------------------------------------ rate of change and distance

    /** Percent change between consecutive values of {@code source}, published as {@code percentChange<Source>}. */
    public InstrumentGroupRTIndicator percentChange(String source) {
        return rateChange("percentChange" + capitalize(source), source, true);
    }

    public InstrumentGroupRTIndicator percentChange(String name, String source) {
        return rateChange(name, source, true);
    }

    /** Absolute change between consecutive values of {@code source}, published as {@code rateChange<Source>}. */
    public InstrumentGroupRTIndicator rateChange(String source) {
        return rateChange("rateChange" + capitalize(source), source, false);
    }

    public InstrumentGroupRTIndicator rateChange(String name, String source, boolean percent) {
        return publish(name, Node.chain(name, new RateChangeRTIndicator(percent), require(source)), false);
    }

    /** Percent distance of price from the named MA, published as {@code distanceMa<Ma>}. */
    public InstrumentGroupRTIndicator distanceMa(String ma) {
        return distanceMa("distanceMa" + capitalize(ma), ma);
    }

    public InstrumentGroupRTIndicator distanceMa(String name, String ma) {
        Node price = byName.get("price");
        Node maNode = require(ma);
        return publish(name, Node.derived(name,
                new Ops.Binary(price != null ? price : primary(), maNode, Ops.Binary.DISTANCE, null)), false);
    }

    /** Percent distance {@code (a - b) / b * 100}. */
    public InstrumentGroupRTIndicator distance(String name, String a, String b) {
        return binary(name, a, b, Ops.Binary.DISTANCE, null);
    }

    // ------------------------------------------------------------------ gain, loss, extremes

    public InstrumentGroupRTIndicator gain(String source) {
        return gain("gain" + capitalize(source), source, true);
    }

    public InstrumentGroupRTIndicator gain(String name, String source) {
        return gain(name, source, true);
    }

    public InstrumentGroupRTIndicator gain(String name, String source, boolean resetPeriodsOnSustain) {
        return publish(name, Node.chain(name, new GainRTIndicator(resetPeriodsOnSustain), require(source)),
                false);
    }

    public InstrumentGroupRTIndicator loss(String source) {
        return loss("loss" + capitalize(source), source, true);
    }

    public InstrumentGroupRTIndicator loss(String name, String source) {
        return loss(name, source, true);
    }

    public InstrumentGroupRTIndicator loss(String name, String source, boolean resetPeriodsOnSustain) {
        return publish(name, Node.chain(name, new LossRTIndicator(resetPeriodsOnSustain), require(source)),
                false);
    }

    public InstrumentGroupRTIndicator max(String source) {
        return max("max" + capitalize(source), source);
    }

    public InstrumentGroupRTIndicator max(String name, String source) {
        return running(name, source, Ops.Running.MAX);
    }

    public InstrumentGroupRTIndicator min(String source) {
        return min("min" + capitalize(source), source);
    }

    public InstrumentGroupRTIndicator min(String name, String source) {
        return running(name, source, Ops.Running.MIN);
    }

    public InstrumentGroupRTIndicator sum(String source) {
        return sum("sum" + capitalize(source), source);
    }

    public InstrumentGroupRTIndicator sum(String name, String source) {
        return running(name, source, Ops.Running.SUM);
    }

    // ------------------------------------------------------------------ arithmetic

    public InstrumentGroupRTIndicator add(String name, String a, String b) {
        return binary(name, a, b, Ops.Binary.ADD, null);
    }

    public InstrumentGroupRTIndicator diff(String name, String a, String b) {
        return binary(name, a, b, Ops.Binary.DIFF, null);
    }

    public InstrumentGroupRTIndicator mul(String name, String a, String b) {
        return binary(name, a, b, Ops.Binary.MUL, null);
    }

    /** Scales {@code source} in place: from now on the name refers to {@code source * coef}. */
    public InstrumentGroupRTIndicator mul(String source, double coef) {
        return transform(source, source, Ops.Transform.SCALE, coef, 0, null);
    }

    /** Publishes {@code source * coef} under a new name. */
    public InstrumentGroupRTIndicator mul(String name, String source, double coef) {
        return transform(name, source, Ops.Transform.SCALE, coef, 0, null);
    }

    /** Any function of two indicators' values, e.g. {@code (a, b) -> a / b}. NaN operands give NaN without a call. */
    public InstrumentGroupRTIndicator fun(String name, String a, String b,
                                          BiFunction<Double, Double, ? extends Number> function) {
        return binary(name, a, b, Ops.Binary.FUN, Objects.requireNonNull(function, "function"));
    }

    // ------------------------------------------------------------------ predicates (1 = true, 0 = false)

    public InstrumentGroupRTIndicator lessThan(String name, String source, double v) {
        return test(name, source, Ops.Test.LT, v, null);
    }

    public InstrumentGroupRTIndicator greatThan(String name, String source, double v) {
        return test(name, source, Ops.Test.GT, v, null);
    }

    public InstrumentGroupRTIndicator greatOrEqual(String name, String source, double v) {
        return test(name, source, Ops.Test.GE, v, null);
    }

    public InstrumentGroupRTIndicator lessOrEqual(String name, String source, double v) {
        return test(name, source, Ops.Test.LE, v, null);
    }

    public InstrumentGroupRTIndicator equal(String name, String source, double v) {
        return test(name, source, Ops.Test.EQ, v, null);
    }

    public InstrumentGroupRTIndicator notEqual(String name, String source, double v) {
        return test(name, source, Ops.Test.NE, v, null);
    }

    public InstrumentGroupRTIndicator predicate(String name, String source, DoublePredicate predicate) {
        return test(name, source, Ops.Test.PRED, 0, Objects.requireNonNull(predicate, "predicate"));
    }

    /** Number of consecutive updates of {@code source} for which the predicate held. */
    public InstrumentGroupRTIndicator periodCount(String name, String source, DoublePredicate predicate) {
        return publish(name, Node.chain(name, new Ops.PeriodCount(Objects.requireNonNull(predicate, "predicate")),
                require(source)), false);
    }

    // ------------------------------------------------------------------ conditional selection

    /** The value of {@code thenName} while {@code source == coef}, otherwise the value of {@code elseName}. */
    public InstrumentGroupRTIndicator equal(String name, String source, double coef, String thenName, String elseName) {
        Ops.Select sel = new Ops.Select(require(source), coef, require(thenName), require(elseName));
        return publish(name, Node.derived(name, sel), false);
    }

    /**
     * Each event, tests {@code predicate} on (a read-only view of) {@code source}; feeds the source's value to
     * {@code then} when it holds, to {@code otherwise} when not, and takes that branch's value. Pass fresh
     * indicators to feed them only on their branch, or read-only views to select between existing values.
     */
    public InstrumentGroupRTIndicator conditional(String name, String source, Predicate<RTIndicator> predicate,
                                                  RTIndicator then, RTIndicator otherwise) {
        Node src = require(source);
        Ops.Conditional c = new Ops.Conditional(Objects.requireNonNull(predicate, "predicate"), src.ro(),
                Objects.requireNonNull(then, "then"), Objects.requireNonNull(otherwise, "otherwise"));
        return publish(name, Node.chain(name, c, src), false);
    }

    // ------------------------------------------------------------------ transformations (in place)

    /** Limits {@code source} to [min, max] in place. */
    public InstrumentGroupRTIndicator clamp(String source, double min, double max) {
        if (min > max) {
            throw new IllegalArgumentException("clamp(\"" + source + "\"): min " + min + " > max " + max);
        }
        return transform(source, source, Ops.Transform.CLAMP, min, max, null);
    }

    /** Replaces {@code source}'s value by {@code replacement} whenever the predicate holds, in place. */
    public InstrumentGroupRTIndicator clamp(String source, DoublePredicate predicate, double replacement) {
        return transform(source, source, Ops.Transform.REPLACE_WHEN, replacement, 0,
                Objects.requireNonNull(predicate, "predicate"));
    }

    /** Rounds {@code source} to {@code decimals} decimals (half up) in place. */
    public InstrumentGroupRTIndicator round(String source, int decimals) {
        return transform(source, source, Ops.Transform.ROUND, decimals, 0, null);
    }

    /**
     * Publishes {@code decorator.apply(read-only view of source)} under {@code name}, fed with the source's
     * value each event. With {@code name} equal to {@code source} the name is rebound to the decorated one.
     */
    public InstrumentGroupRTIndicator decorate(String name, String source, Function<RTIndicator, RTIndicator> decorator) {
        Node src = require(source);
        RTIndicator d = Objects.requireNonNull(decorator.apply(src.ro()), "decorator result");
        return publish(name, Node.chain(name, d, src), name.equals(source));
    }

    // ------------------------------------------------------------------ windows

    /** Calls {@code listener} each time a window of {@code period} on {@code indicatorName} closes. */
    public InstrumentGroupRTIndicator window(String indicatorName, WindowTime period, AbstractWindowListener listener) {
        return registerWindow(indicatorName, Objects.requireNonNull(period, "period").getMillis(), listener);
    }

    /** As {@link #window(String, WindowTime, AbstractWindowListener)} with any duration of at least 1 ms. */
    public InstrumentGroupRTIndicator window(String indicatorName, Duration period, AbstractWindowListener listener) {
        Objects.requireNonNull(period, "period");
        long ms;
        try {
            ms = period.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("window period too long: " + period);
        }
        return registerWindow(indicatorName, ms, listener);
    }

    /** A builder: {@code window().windowTime(WindowTime.m5).indicator("rsi14").listener(l).build()}. */
    public WindowBuilder window() {
        return new WindowBuilder(this);
    }

    InstrumentGroupRTIndicator registerWindow(String indicatorName, long periodMillis, AbstractWindowListener listener) {
        Objects.requireNonNull(listener, "listener");
        if (periodMillis < 1) {
            throw new IllegalArgumentException("window period must be at least 1 ms, got " + periodMillis + " ms");
        }
        windows.add(new Window(require(indicatorName), periodMillis, listener));
        listener.markWindowRegistered();
        return this;
    }

    // ------------------------------------------------------------------ reading

    /** The current value of the named indicator. */
    public double getValue(String name) {
        return require(name).currentValue();
    }

    /** The named indicator itself (mutable: updating it by hand advances shared state). */
    public RTIndicator getExisting(String name) {
        return require(name).ind();
    }

    /** A read-only view of the named indicator. */
    public RTIndicator getReadOnlyExisting(String name) {
        return require(name).ro();
    }

    /** A read-only view of the named indicator, or empty when no indicator has that name. */
    public Optional<RTIndicator> getReadOnly(String name) {
        Node n = byName.get(name);
        return n == null ? Optional.empty() : Optional.of(n.ro());
    }

    /** True when an indicator is published under {@code name}. */
    public boolean has(String name) {
        return byName.containsKey(name);
    }

    /** The published names, in registration order. */
    public List<String> getNames() {
        return List.copyOf(byName.keySet());
    }

    /** The name published by the latest registration call (the middle band for Bollinger), or null. */
    public String lastRegisteredName() {
        return lastName;
    }

    @Override
    public String toString() {
        return "InstrumentGroupRTIndicator[" + instrument + ", " + byName.keySet() + "]";
    }

    // ------------------------------------------------------------------ engine-internal

    /**
     * Engine-internal, called by the strategy once {@code setupIndicators} has returned and before
     * the first event: every indicator the group built from a field of {@code run}'s data (and that
     * no code was handed) takes its values from a series computed ahead ({@link RunSeries}) instead
     * of stepping. Whatever later reaches such an indicator (getExisting, a read-only view, a
     * readiness check) first brings it up to date and ends its replay, so nothing can tell the two
     * apart but the time taken.
     *
     * @return how many indicators take a series
     */
    public int useSeries(RunSeries run) {
        if (run == null || !instrument.equals(run.instrument()) || frame.index >= 0) {
            return 0;
        }
        int taken = 0;
        int most = run.maxSeriesPerRun();
        for (int i = 0; i < nodeCount && taken < most; i++) {
            Node n = nodes[i];
            Integer code = n.canReplay() ? n.dataField() : null;
            if (code == null || !run.covers(code)) {
                continue;
            }
            boolean held = n.kind == Node.CHAIN;
            double[] series = run.series(code, held, n.seriesKey, n.fresh);
            if (series != null && n.replay(series, run, code)) {
                taken++;
            }
        }
        boolean all = nodeCount > 0;
        for (int i = 0; i < nodeCount && all; i++) {
            all = nodes[i].canBeLazy();
        }
        if (all) {
            for (int i = 0; i < nodeCount; i++) {
                nodes[i].toLazy();
            }
            lazyEnd = run.events();
            lazy = true;
        }
        return taken;
    }

    /**
     * Engine-internal: brings every replaying indicator up to date and lets it step from now on
     * (before an event fed by hand, which series do not cover). Changes no value.
     */
    public void endReplay() {
        exitLazy();
        for (int i = 0; i < nodeCount; i++) {
            nodes[i].endReplay();
        }
    }

    /**
     * Brings every LAZY node back to being stepped, each holding what stepping would have left
     * (operands before the operations over them: registration order), before anything that
     * could tell the difference: a node appended, an indicator reached, an event the series do not cover.
     */
    void exitLazy() {
        if (!lazy) {
            return;
        }
        lazy = false;
        stepless = frame.done;
        for (int i = 0; i < nodeCount; i++) {
            nodes[i].fromLazy();
        }
    }

    /**
     * How many events the group took without stepping a node (LAZY, {@link #useSeries}); read through
     * {@link GroupDriver#steplessEvents}, which strategies cannot reach: a strategy that could read it could
     * behave differently on a host that computes series ahead than on one that does not.
     */
    int steplessEvents() {
        return lazy ? frame.done : stepless;
    }

    /**
     * Steps every node in registration order; while all are LAZY ({@link #useSeries}), only counts the
     * event, which is what their values are read at.
     */
    final void stepAll() {
        if (lazy) {
            EventFrame f = frame;
            int e = f.index;
            if (e < lazyEnd) {
                f.done = e + 1;
                return;
            }
            exitLazy();
        }
        Node[] ns = nodes;
        int n = nodeCount;
        EventFrame f = frame;
        for (int i = 0; i < n; i++) {
            ns[i].step(f);
        }
    }

    /** The instrument's store, resolved on the first window fire. */
    StateStore store() {
        StateStore s = store;
        if (s == null) {
            s = owner.getStateStore(instrument).orElseThrow();
            store = s;
        }
        return s;
    }

    /** Marks a node whose indicator the group just built as one whose values may be precomputed. */
    private static Node precomputable(Node n, String key, Supplier<RTIndicator> fresh) {
        n.seriesKey = key;
        n.fresh = fresh;
        return n;
    }

    private Node fromPrice(String name, RTIndicator ind) {
        Node price = byName.get("price");
        return price == null ? Node.field(name, ind, PRIMARY) : Node.chain(name, ind, price);
    }

    private Node primary() {
        if (primaryNode == null) {
            primaryNode = append(precomputable(Node.field(null, new Ops.ValueIndicator(), PRIMARY), "value",
                    Ops.ValueIndicator::new));
        }
        return primaryNode;
    }

    private InstrumentGroupRTIndicator binary(String name, String a, String b, int op,
                                              BiFunction<Double, Double, ? extends Number> fn) {
        return publish(name, Node.derived(name, new Ops.Binary(require(a), require(b), op, fn)), false);
    }

    private InstrumentGroupRTIndicator test(String name, String source, int op, double v, DoublePredicate p) {
        return publish(name, Node.derived(name, new Ops.Test(require(source), op, v, p)), false);
    }

    private InstrumentGroupRTIndicator running(String name, String source, int mode) {
        return publish(name, Node.chain(name, new Ops.Running(mode), require(source)), false);
    }

    private InstrumentGroupRTIndicator transform(String name, String source, int op, double p1, double p2,
                                                 DoublePredicate p) {
        Ops.Transform t = new Ops.Transform(require(source), op, p1, p2, p);
        return publish(name, Node.derived(name, t), name.equals(source));
    }

    private Node append(Node n) {
        exitLazy(); // the new node may read the others' values
        n.group = this;
        n.frame = frame;
        if (nodeCount == nodes.length) {
            nodes = Arrays.copyOf(nodes, nodeCount * 2);
        }
        nodes[nodeCount++] = n;
        if (n.readsKlineDetail()) {
            klineDetail = true;
        }
        if (n.readsTickerDetail()) {
            tickerDetail = true;
        }
        return n;
    }

    private InstrumentGroupRTIndicator publish(String name, Node n, boolean rebind) {
        checkName(name);
        Node old = byName.get(name);
        if (old != null && !rebind) {
            StrategyInternals.notices(owner).add("indicator '" + name + "' was registered twice on " + instrument
                    + "; the later registration wins");
        }
        append(n);
        byName.put(name, n);
        Arrays.fill(recentNames, null); // the name may now mean another node
        Arrays.fill(recentNodes, null);
        RTIndicator ind = n.registered();
        if (ind instanceof AbstractRTIndicator && ind.getId() == null) {
            ((AbstractRTIndicator) ind).withId(name);
        }
        lastName = name;
        return this;
    }

    private Node require(String name) {
        // Code asks for the same names over and over, usually with the same string literal (an
        // interned, identical reference): those are found by reference before hashing.
        String[] names = recentNames;
        for (int i = 0; i < RECENT; i++) {
            if (names[i] == name && name != null) {
                return recentNodes[i];
            }
        }
        Node n = name == null ? null : byName.get(name);
        if (n != null) {
            int slot = recentNext;
            recentNext = (slot + 1) & (RECENT - 1);
            recentNames[slot] = name;
            recentNodes[slot] = n;
        }
        if (n == null) {
            throw new IllegalArgumentException("no indicator named '" + name + "' on " + instrument
                    + "; registered: " + new ArrayList<>(byName.keySet()));
        }
        return n;
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("an indicator name must not be empty");
        }
    }

    private static String capitalize(String s) {
        if (s == null || s.isEmpty()) {
            return String.valueOf(s);
        }
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** {@code 2} and {@code 2.0} → {@code "2"}; {@code 2.5} → {@code "2.5"}. */
    static String formatNumber(double k) {
        if (k == Math.rint(k) && Math.abs(k) < 1e15) {
            return Long.toString((long) k);
        }
        if (Double.isNaN(k) || Double.isInfinite(k)) {
            return Double.toString(k);
        }
        return BigDecimal.valueOf(k).stripTrailingZeros().toPlainString();
    }
}
