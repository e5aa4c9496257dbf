package com.wualabs.qtsurfer.engine.checks;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.GroupDriver;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.StandardDeviationRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.AtrRTIndicator;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;
import com.wualabs.qtsurfer.engine.strategy.GainRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** The indicator builder: published names, each builder call's semantics, reading, errors. */
final class GroupChecks {

    static final Instrument BTC = new Instrument("BTC", "USDT");

    private GroupChecks() {
    }

    /** A strategy whose setup is supplied by the check. */
    public static final class Bare extends AbstractTickerStrategy {
        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        }
    }

    static InstrumentGroupRTIndicator group() {
        return new InstrumentGroupRTIndicator(new Bare(), BTC);
    }

    static void tick(InstrumentGroupRTIndicator g, long ts, double last) {
        GroupDriver.ticker(g, ts, last - 1, 2, last + 1, 3, Double.NaN, Double.NaN, Double.NaN, last, Double.NaN, 10,
                Double.NaN, Double.NaN);
    }

    static void run() {
        Check.section("builder");
        names();
        values();
        transforms();
        errors();
        lookups();
        klineColumns();
        tickerColumns();
        mixedColumns();
    }

    /**
     * The fields one kind of event leaves unset read NaN after it, whatever came before, and on a
     * group's first event, also fed from columns (which skip clearing them while they are NaN). A
     * field node keeps its last value over a NaN; AutoAskClose shows the frame itself: the ask
     * while there is one, else the close.
     */
    static void mixedColumns() {
        InstrumentGroupRTIndicator g = group();
        g.addPrice().add("auto", TickerValueSource.AutoAskClose).add("vwap", TickerValueSource.Vwap)
                .diff("gap", "price", "auto").diff("dn", "price", "vwap").add("an", "vwap", "price")
                .mul("mn", "price", "vwap");
        double[] ask = {9};
        double[] one = {1};
        double[] close = {7};
        GroupDriver.kline(g, 0, 999, one, one, one, close, one, 0);
        Check.near(7, g.getValue("auto"), "a first kline has no ask: AutoAskClose is its close");
        Check.isTrue(Double.isNaN(g.getValue("vwap")), "a first kline leaves the vwap NaN");
        for (String name : new String[] {"dn", "an", "mn"}) {
            Check.isTrue(Double.isNaN(g.getValue(name)), name + " of a NaN is NaN");
        }
        GroupDriver.ticker(g, 1000, one, one, ask, one, close, one, 0);
        Check.near(9, g.getValue("auto"), "a ticker's ask");
        Check.near(-2, g.getValue("gap"), "price minus ask");
        GroupDriver.kline(g, 2000, 2999, one, one, one, close, one, 0);
        Check.near(7, g.getValue("auto"), "a kline after a ticker clears its ask");
        Check.near(0, g.getValue("gap"), "and the difference it fed");
        InstrumentGroupRTIndicator first = group();
        first.addPrice().add("auto", TickerValueSource.AutoAskClose);
        GroupDriver.ticker(first, 0, one, one, ask, one, close, one, 0);
        Check.near(9, first.getValue("auto"), "a first ticker's ask");
        GroupDriver.kline(first, 1000, 1999, one, one, one, close, one, 0);
        Check.near(7, first.getValue("auto"), "a kline after a first ticker clears its ask");
    }

    /** As {@link #klineColumns}, for tickers (whose windows fire before the event, so the late nodes step with it). */
    static void tickerColumns() {
        int n = 600;
        SplittableRandom rnd = new SplittableRandom(9);
        long[] ts = new long[n];
        double[][] v = new double[6][n]; // bid, bidSize, ask, askSize, last, volume
        long t = 0;
        for (int i = 0; i < n; i++) {
            t += 1 + rnd.nextInt(900);
            ts[i] = t;
            double last = 100 + rnd.nextDouble(10);
            v[0][i] = last - rnd.nextDouble(1);
            v[1][i] = rnd.nextDouble(5);
            v[2][i] = last + rnd.nextDouble(1);
            v[3][i] = rnd.nextDouble(5);
            v[4][i] = last;
            v[5][i] = rnd.nextDouble(50);
        }
        for (int lateFire : new int[] {1, 2, 5}) {
            LateTickerDetail.lateFire = lateFire;
            StrategyRun byRow = start(LateTickerDetail.class);
            for (int i = 0; i < n; i++) {
                byRow.onTicker(ts[i], v[0][i], v[1][i], v[2][i], v[3][i], v[4][i], v[5][i]);
            }
            StrategyRun byColumns = start(LateTickerDetail.class);
            long[] progress = new long[1];
            byColumns.onTickers(ts, v[0], v[1], v[2], v[3], v[4], v[5], 0, n, progress);
            sameAsByRow("tickers", lateFire, n, byRow, byColumns, progress);
        }
    }

    /** {@link LateDetail} on tickers: a bid field and a bar indicator registered at a window's close. */
    public static final class LateTickerDetail extends AbstractTickerStrategy {
        static int lateFire;

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().window("price", WindowTime.s1,
                    new LateListener(this, indicators, lateFire, TickerValueSource.Bid));
        }
    }

    /**
     * Klines fed from columns read a row's open, high, low and volume only once a node reads them; a node
     * registered by a listener starts with the right values, whether its window fired before the event was
     * stepped (so it is stepped with it) or after. Fed row by row, every field is always read: both must agree.
     */
    static void klineColumns() {
        int n = 400;
        SplittableRandom rnd = new SplittableRandom(5);
        long[] open = new long[n];
        long[] close = new long[n];
        double[][] v = new double[5][n];
        long t = 0;
        long[] widths = {300, 500, 1000, 2500};
        for (int i = 0; i < n; i++) {
            open[i] = t;
            close[i] = t + widths[rnd.nextInt(widths.length)] - 1;
            t = close[i] + 1 + (rnd.nextBoolean() ? 0 : 1000L * rnd.nextInt(3));
            double c = 100 + rnd.nextDouble(10);
            v[0][i] = c - rnd.nextDouble(2); // open
            v[1][i] = c + rnd.nextDouble(3); // high
            v[2][i] = c - rnd.nextDouble(3); // low
            v[3][i] = c;
            v[4][i] = rnd.nextDouble(50); // volume
        }
        for (int lateFire : new int[] {1, 2, 3, 7}) {
            LateDetail.lateFire = lateFire;
            StrategyRun byRow = start(LateDetail.class);
            for (int i = 0; i < n; i++) {
                byRow.onKline(open[i], close[i], v[0][i], v[1][i], v[2][i], v[3][i], v[4][i]);
            }
            StrategyRun byColumns = start(LateDetail.class);
            long[] progress = new long[1];
            byColumns.onKlines(open, close, v[0], v[1], v[2], v[3], v[4], 0, n, progress);
            sameAsByRow("klines", lateFire, n, byRow, byColumns, progress);
        }
    }

    private static StrategyRun start(Class<?> cls) {
        try {
            return StrategyHarness.start(cls, Map.of(), BTC);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads only the close until its window's {@code lateFire}-th close, then registers an open field and a
     * bar indicator and emits both on every later close (as a buy's and a sell's price).
     */
    public static final class LateDetail extends AbstractKlineStrategy {
        static int lateFire;

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().window("price", WindowTime.s1,
                    new LateListener(this, indicators, lateFire, TickerValueSource.Open));
        }
    }

    /**
     * At its window's {@code lateFire}-th close registers a field node of {@code field} and a bar indicator;
     * on every later close emits the field as a buy's price and the indicator as a sell's.
     */
    static final class LateListener extends AbstractWindowListener {
        private final int lateFire;
        private final TickerValueSource field;
        private int fires;

        LateListener(AbstractStrategy strategy, InstrumentGroupRTIndicator indicators, int lateFire,
                     TickerValueSource field) {
            super(strategy, indicators);
            this.lateFire = lateFire;
            this.field = field;
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            fires++;
            if (fires == lateFire) {
                indicators.add("late", field);
                indicators.add("atr", new AtrRTIndicator(2));
            } else if (fires > lateFire) {
                emitBuy(indicators.getValue("late"));
                emitSell(indicators.getValue("atr"));
            }
        }
    }

    /** The run fed from columns delivered every row and emitted what the run fed row by row did. */
    private static void sameAsByRow(String kind, int lateFire, int rows, StrategyRun byRow, StrategyRun byColumns,
                                    long[] progress) {
        Check.equal((long) rows, progress[0], kind + " rows delivered from columns");
        Check.isTrue(byRow.signalCount() > 20, "the late " + kind + " indicators were read (fire " + lateFire + ")");
        Check.isTrue(Arrays.equals(byRow.signalTs(), byColumns.signalTs())
                && Arrays.equals(byRow.signalPrice(), byColumns.signalPrice()),
                kind + " from columns = row by row, indicators registered at fire " + lateFire);
    }

    /** Names are found by reference first (a few remembered); a re-registration must show. */
    static void lookups() {
        InstrumentGroupRTIndicator g = group();
        String[] names = {"a", "b", "c", "d", "e"};
        g.addPrice();
        for (int i = 0; i < names.length; i++) {
            g.sma(names[i], "price", i + 1);
        }
        for (int k = 1; k <= 5; k++) {
            tick(g, 1000L * k, 10 * k); // 10 .. 50
        }
        double[] expected = {50, 45, 40, 35, 30};
        for (int round = 0; round < 3; round++) { // more names than remembered, in rotation
            for (int i = 0; i < names.length; i++) {
                Check.near(expected[i], g.getValue(names[i]), "sma(" + (i + 1) + ") by name, round " + round);
            }
        }
        Check.near(30, g.getValue(new String("e")), "an equal name that is another string");
        Check.near(45, g.getValue("b"), "read just before it is registered again");
        g.sma("b", "price", 1); // the later registration wins, also for a remembered name
        tick(g, 6000, 60);
        Check.near(60, g.getValue("b"), "a re-registered name reads its new indicator");
        Check.near(60, g.getValue(new String("b")), "another string for it too");
        Check.near(50, g.getValue("c"), "the other names are unchanged");
    }

    static void names() {
        InstrumentGroupRTIndicator g = group();
        g.addPrice().rsi(14).sma(20).ema(9).bollinger(20, 2).bollinger(10, 2.5).rsi(7, false)
                .percentChange("price").rateChange("price").distanceMa("ema9").gain("price").loss("price")
                .max("price").min("price").sum("price").bollingerBandwidth("blgr20_2")
                .add("bid", TickerValueSource.Bid);
        List<String> names = g.getNames();
        for (String n : new String[] {"price", "rsi14", "sma20", "ema9", "blgr20_2", "blgr20_2Upper", "blgr20_2Lower",
                "blgr10_2.5", "blgr10_2.5Upper", "blgr10_2.5Lower", "rsi7", "percentChangePrice", "rateChangePrice",
                "distanceMaEma9", "gainPrice", "lossPrice", "maxPrice", "minPrice", "sumPrice", "blgr20_2Bandwidth",
                "bid"}) {
            Check.isTrue(names.contains(n), "published name " + n + " in " + names);
        }
        Check.equal("bid", g.lastRegisteredName(), "lastRegisteredName");
        g.bollinger("bb", 20, 2.0);
        Check.equal("bb", g.lastRegisteredName(), "lastRegisteredName of bollinger is the middle band");
        Check.isTrue(g.has("bbUpper") && g.has("bbLower"), "bollinger(name, ...) publishes name+Upper / name+Lower");
        InstrumentGroupRTIndicator g2 = group();
        g2.bollinger(20, 2.0);
        Check.isTrue(g2.has("blgr20_2"), "bollinger(20, 2.0) is named blgr20_2");
        Check.equal("ema9", g.getExisting("ema9").getId(), "the group sets the indicator id");
        g.gain("_hidden", "price", true);
        Check.isTrue(g.getExisting("_hidden").isHidden(), "names starting with _ are hidden");
        Check.equal(DisplayHint.PERCENT, g.getExisting("percentChangePrice").getDisplayHint(), "percentChange is PERCENT");
        g.distance("gap", "ema9", "sma20");
        Check.equal(DisplayHint.PERCENT, g.getExisting("gap").getDisplayHint(), "distance is PERCENT");
    }

    static void values() {
        InstrumentGroupRTIndicator g = group();
        g.addPrice().add("bid", TickerValueSource.Bid).add("ask", TickerValueSource.Ask)
                .add("auto", TickerValueSource.AutoAskClose).add("vol", TickerValueSource.Volume)
                .add("open", TickerValueSource.Open)
                .sma(3).sma("s3c", 3, false).ema("e2", 2).ema("volEma", "vol", 2).sma("smaOfE2", "e2", 2)
                .rsi(2).percentChange("price").rateChange("rc", "price", false).distanceMa("sma3")
                .distance("dist", "price", "sma3").gain("g", "price", true).gain("gs", "price", false)
                .loss("price").max("price").min("price").sum("price")
                .add("spread", "ask", "bid").diff("d", "ask", "bid").mul("m", "ask", "bid")
                .add("addNaN", "price", "open").diff("diffNaN", "open", "price").mul("mulNaN", "price", "open")
                .fun("ratio", "ask", "bid", (a, b) -> a / b).fun("one", "ask", "bid", (a, b) -> 1)
                .lessThan("lt", "price", 102).greatThan("gt", "price", 102).greatOrEqual("ge", "price", 102)
                .lessOrEqual("le", "price", 102).equal("eq", "price", 102).notEqual("ne", "price", 102)
                .predicate("odd", "price", v -> ((long) v) % 2 == 1).periodCount("upRun", "g", v -> v > 0)
                .equal("sel", "eq", 1, "ask", "bid")
                .conditional("cond", "price", ind -> ind.getValue() > 101, new EmaRTIndicator(1), new EmaRTIndicator(1).ro())
                .add("std", new StandardDeviationRTIndicator(3))
                .add("atr", new AtrRTIndicator(2))
                .add("stdOfSma", new StandardDeviationRTIndicator(g.getReadOnlyExisting("sma3"), 2))
                .bollinger("bb", 3, 2);
        double[] prices = {100, 101, 101, 103, 102};
        for (int i = 0; i < prices.length; i++) {
            tick(g, 1000L * i, prices[i]);
        }
        // price 102 (last), previous 103
        Check.near(102, g.getValue("price"), "price = last");
        Check.near(101, g.getValue("bid"), "Bid field");
        Check.near(103, g.getValue("ask"), "Ask field");
        Check.near(103, g.getValue("auto"), "AutoAskClose = ask when positive");
        Check.near(10, g.getValue("vol"), "Volume field");
        Check.isTrue(Double.isNaN(g.getValue("open")) && !g.getExisting("open").isReady(),
                "a NaN field leaves its indicator not ready");
        Check.near((101 + 103 + 102) / 3.0, g.getValue("sma3"), "sma3");
        Check.near(Ref.ema(prices, 2)[4], g.getValue("e2"), "ema e2");
        Check.near(10, g.getValue("volEma"), "ema of volume");
        double[] e2 = Ref.ema(prices, 2);
        Check.near((e2[3] + e2[4]) / 2, g.getValue("smaOfE2"), "sma of another indicator");
        Check.near(Ref.rsiCutler(prices, 2)[4], g.getValue("rsi2"), "rsi2 Cutler");
        Check.near((102 - 103) / 103.0 * 100, g.getValue("percentChangePrice"), "percentChange");
        Check.near(-1, g.getValue("rc"), "rateChange absolute");
        double sma3 = (101 + 103 + 102) / 3.0;
        Check.near((102 - sma3) / sma3 * 100, g.getValue("distanceMaSma3"), "distanceMa = (price - ma) / ma * 100");
        Check.near((102 - sma3) / sma3 * 100, g.getValue("dist"), "distance(a, b) = (a - b) / b * 100");
        Check.near(0, g.getValue("g"), "gain resets on a fall");
        Check.near(1, g.getValue("lossPrice"), "loss counts the fall");
        Check.near(103, g.getValue("maxPrice"), "running max");
        Check.near(100, g.getValue("minPrice"), "running min");
        Check.near(507, g.getValue("sumPrice"), "running sum");
        Check.near(204, g.getValue("spread"), "add(a, b)");
        Check.near(2, g.getValue("d"), "diff(a, b)");
        Check.near(103 * 101, g.getValue("m"), "mul(a, b)");
        long nan = Double.doubleToRawLongBits(Double.NaN);
        for (String name : new String[] {"addNaN", "diffNaN", "mulNaN"}) {
            double v = g.getValue(name);
            Check.isTrue(Double.doubleToRawLongBits(v) == nan && !g.getExisting(name).isReady(),
                    name + ": an operation over a NaN operand is Double.NaN, bit for bit, and not ready");
        }
        Check.near(103 / 101.0, g.getValue("ratio"), "fun(a, b)");
        Check.near(1, g.getValue("one"), "fun returning an int");
        Check.near(0, g.getValue("lt"), "lessThan encodes false as 0");
        Check.near(0, g.getValue("gt"), "greatThan");
        Check.near(1, g.getValue("ge"), "greatOrEqual encodes true as 1");
        Check.near(1, g.getValue("le"), "lessOrEqual");
        Check.near(1, g.getValue("eq"), "equal");
        Check.near(0, g.getValue("ne"), "notEqual");
        Check.near(0, g.getValue("odd"), "predicate");
        Check.near(0, g.getValue("upRun"), "periodCount resets");
        Check.near(103, g.getValue("sel"), "equal(name, src, coef, then, else) picks then");
        Check.near(102, g.getValue("cond"), "conditional feeds the then-branch while the predicate holds");
        Check.near(Math.sqrt(Ref.popVar(prices, 2, 4)), g.getValue("std"), "add(name, advanced indicator) fed price");
        Check.near(Ref.mma(new double[] {0, 1, 0, 2, 1}, 2)[4], g.getValue("atr"),
                "bar indicator fed O=H=L=C=last on ticks");
        double[] s3 = Ref.sma(prices, 3);
        Check.near(Math.sqrt(Ref.popVar(s3, 3, 4)), g.getValue("stdOfSma"), "StdDev over a read-only registered indicator");
        double[][] bb = Ref.bollinger(prices, 3, 2);
        Check.near(bb[1][4], g.getValue("bbUpper"), "bollinger upper via group");
        Check.near(bb[2][4], g.getValue("bbLower"), "bollinger lower via group");
        // gain with sustain
        InstrumentGroupRTIndicator g2 = group();
        g2.addPrice().gain("gs", "price", false).gain("gr", "price", true);
        for (double p : new double[] {1, 2, 2, 3}) {
            tick(g2, 0, p);
        }
        Check.near(2, g2.getValue("gs"), "gain(resetPeriodsOnSustain=false) keeps the count on a flat update");
        Check.near(1, g2.getValue("gr"), "gain(resetPeriodsOnSustain=true) restarts after a flat update");
        Check.equal(1, ((GainRTIndicator) g2.getExisting("gr")).getPeriodCount(), "getPeriodCount");
        // readiness before data and read-only accessors
        InstrumentGroupRTIndicator g3 = group();
        g3.addPrice().ema(3);
        Check.isTrue(Double.isNaN(g3.getValue("ema3")), "value is NaN before data");
        Check.isFalse(g3.getExisting("ema3").isReady(), "not ready before data");
        Check.isTrue(g3.getReadOnly("missing").isEmpty(), "getReadOnly of an unknown name is empty");
        RTIndicator ro = g3.getReadOnlyExisting("ema3");
        tick(g3, 0, 5);
        tick(g3, 0, 6);
        tick(g3, 0, 7);
        ro.update(1000);
        Check.near(6, g3.getValue("ema3"), "a read-only view cannot advance the indicator");
        Check.near(6, g3.getReadOnly("ema3").orElseThrow().getValue(), "getReadOnly reads the value");
    }

    static void transforms() {
        InstrumentGroupRTIndicator g = group();
        g.addPrice().sma("before", "price", 1).clamp("price", 0, 100).sma("after", "price", 1)
                .add("x", TickerValueSource.Close).clamp("x", v -> v > 150, -1.0)
                .add("r", TickerValueSource.Close).round("r", 1)
                .add("s", TickerValueSource.Close).mul("s", 0.01).mul("t", "s", 2.0)
                .decorate("dec", "price", src -> new EmaRTIndicator(src, 1));
        tick(g, 0, 123.456);
        Check.near(100, g.getValue("price"), "clamp(source, min, max) acts in place");
        Check.near(123.456, g.getValue("before"), "indicators registered before the clamp keep the raw value");
        Check.near(100, g.getValue("after"), "indicators registered after the clamp see the clamped value");
        Check.near(123.456, g.getValue("x"), "clamp(predicate) leaves values where the predicate is false");
        Check.near(123.5, g.getValue("r"), "round(source, 1)");
        Check.near(1.23456, g.getValue("s"), "mul(source, coef) scales in place");
        Check.near(2.46912, g.getValue("t"), "mul(name, source, coef)");
        Check.near(100, g.getValue("dec"), "decorate wraps a read-only view of the source");
        tick(g, 0, 200);
        Check.near(-1, g.getValue("x"), "clamp(predicate, replacement) replaces");
        Check.isTrue(g.getExisting("price").isReady(), "a transformed indicator is ready when its source is");
    }

    static void errors() {
        InstrumentGroupRTIndicator g = group();
        g.addPrice();
        Check.throwsA(IllegalArgumentException.class, () -> g.sma("x", "nope", 3), "unknown source name");
        Check.throwsA(IllegalArgumentException.class, () -> g.getValue("nope"), "getValue of an unknown name");
        Check.throwsA(IllegalArgumentException.class, () -> g.sma(0), "periods must be >= 1");
        Bare s = new Bare();
        InstrumentGroupRTIndicator g2 = new InstrumentGroupRTIndicator(s, BTC);
        g2.addPrice().addPrice().sma(3).sma(3);
        Check.equal(List.of("price", "sma3"), g2.getNames(), "re-registration keeps one name");
        try {
            StrategyRun run = StrategyHarness.start(WindowOnMissing.class, Map.of(), BTC);
            Check.throwsA(IllegalArgumentException.class, () -> run.onTicker(0, 1, 1, 1, 1, 1, 1),
                    "a window on an unregistered name fails at the first event");
            StrategyRun dup = StrategyHarness.start(Duplicate.class, Map.of(), BTC);
            dup.onTicker(0, 1, 1, 1, 1, 1, 1);
            Check.isTrue(dup.notices().stream().anyMatch(n -> n.contains("'sma3' was registered twice")),
                    "a duplicate registration is a notice: " + dup.notices());
            Check.isFalse(dup.notices().stream().anyMatch(n -> n.contains("'price'")),
                    "re-adding the same source field is silent");
        } catch (Exception e) {
            Check.fail("unexpected " + e);
        }
    }

    public static final class WindowOnMissing extends AbstractTickerStrategy {
        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().window("rsi14", java.time.Duration.ofSeconds(1),
                    new WindowChecks.TickRecorder().new Rec(this, indicators));
        }
    }

    public static final class Duplicate extends AbstractTickerStrategy {
        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().addPrice().sma(3).sma(3);
        }
    }
}
