package com.wualabs.qtsurfer.engine.checks;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.CrossDetector;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Window firing rules: alignment, prev / actual, instants, gaps, bars, shared store, end-to-end crossover. */
final class WindowChecks {

    static final Instrument BTC = new Instrument("BTC", "USDT");

    private WindowChecks() {
    }

    /** One fire: {open, close, prev, actual}. */
    static final class Fire {
        final long open;
        final long close;
        final double prev;
        final double actual;

        Fire(long open, long close, double prev, double actual) {
            this.open = open;
            this.close = close;
            this.prev = prev;
            this.actual = actual;
        }
    }

    /** Records every fire of a window on price; emits a buy at {@code actual} on each fire. */
    public static final class TickRecorder extends AbstractTickerStrategy {
        @StrategyProperty(name = "period", defaultValue = "1000")
        long period;
        final List<Fire> fires = new ArrayList<>();

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().window("price", Duration.ofMillis(period), new Rec(this, indicators));
        }

        final class Rec extends AbstractWindowListener {
            Rec(AbstractStrategy s, InstrumentGroupRTIndicator i) {
                super(s, i);
            }

            @Override
            public void onChange(StateStore store, double prev, double actual) {
                fires.add(new Fire(getPrevInstant().toEpochMilli(), getCurrInstant().toEpochMilli(), prev, actual));
                emitBuy(actual);
            }
        }
    }

    /** The same over klines. */
    public static final class BarRecorder extends AbstractKlineStrategy {
        @StrategyProperty(name = "period", defaultValue = "60000")
        long period;
        final List<Fire> fires = new ArrayList<>();

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().window("price", Duration.ofMillis(period), new Rec(this, indicators));
        }

        final class Rec extends AbstractWindowListener {
            Rec(AbstractStrategy s, InstrumentGroupRTIndicator i) {
                super(s, i);
            }

            @Override
            public void onChange(StateStore store, double prev, double actual) {
                fires.add(new Fire(getPrevInstant().toEpochMilli(), getCurrInstant().toEpochMilli(), prev, actual));
                emitSell(actual);
            }
        }
    }

    static void run() throws Exception {
        Check.section("windows");
        tickRules();
        barRules();
        sharedStore();
        crossoverEndToEnd();
    }

    static void expectFires(String what, List<Fire> got, long[][] bounds, double[][] values) {
        if (got.size() != bounds.length) {
            Check.fail(what + ": expected " + bounds.length + " fires, got " + got.size());
            return;
        }
        for (int i = 0; i < bounds.length; i++) {
            Fire f = got.get(i);
            Check.equal(bounds[i][0], f.open, what + " fire " + i + " prevInstant");
            Check.equal(bounds[i][1], f.close, what + " fire " + i + " currInstant");
            Check.near(values[i][0], f.prev, what + " fire " + i + " prev");
            Check.near(values[i][1], f.actual, what + " fire " + i + " actual");
        }
    }

    static void tickRules() throws Exception {
        StrategyRun run = StrategyHarness.start(TickRecorder.class, Map.of(), BTC);
        long[] ts = {100, 500, 999, 1000, 2500, 5200, 5300, 6000};
        for (int i = 0; i < ts.length; i++) {
            run.onTicker(ts[i], Double.NaN, Double.NaN, Double.NaN, Double.NaN, i + 1, 0);
        }
        List<Fire> fires = ((TickRecorder) run.strategy()).fires;
        // fires when the first event at or after the boundary arrives, before that event is applied;
        // empty periods (3000..5000) are skipped; the first fire has prev = NaN
        expectFires("ticks s1", fires,
                new long[][] {{0, 1000}, {1000, 2000}, {2000, 3000}, {5000, 6000}},
                new double[][] {{Double.NaN, 3}, {3, 4}, {4, 5}, {5, 7}});
        Check.isTrue(Arrays.equals(new long[] {1000, 2500, 5200, 6000}, run.signalTs()),
                "signal timestamps are the event times of the events that closed the windows: "
                        + Arrays.toString(run.signalTs()));
        Check.isTrue(Arrays.equals(new double[] {3, 4, 5, 7}, run.signalPrice()), "signal prices = actual");

        // epoch alignment: a 5 s window's first period is [0, 5000) even though the data starts at 4900
        run = StrategyHarness.start(TickRecorder.class, Map.of("period", "5000"), BTC);
        run.onTicker(4900, 1, 1, 1, 1, 10, 0);
        run.onTicker(5000, 1, 1, 1, 1, 11, 0);
        run.onTicker(9999, 1, 1, 1, 1, 12, 0);
        run.onTicker(10000, 1, 1, 1, 1, 13, 0);
        expectFires("ticks 5s aligned", ((TickRecorder) run.strategy()).fires,
                new long[][] {{0, 5000}, {5000, 10000}}, new double[][] {{Double.NaN, 10}, {10, 12}});

        // negative (pre-1970) times align to floor, not towards zero
        run = StrategyHarness.start(TickRecorder.class, Map.of(), BTC);
        run.onTicker(-1500, 1, 1, 1, 1, 1, 0);
        run.onTicker(-200, 1, 1, 1, 1, 2, 0);
        expectFires("negative times", ((TickRecorder) run.strategy()).fires,
                new long[][] {{-2000, -1000}}, new double[][] {{Double.NaN, 1}});

        // a window that never closes never fires; no events -> no fires
        run = StrategyHarness.start(TickRecorder.class, Map.of(), BTC);
        run.onTicker(10, 1, 1, 1, 1, 1, 0);
        run.onTicker(20, 1, 1, 1, 1, 2, 0);
        Check.equal(0, ((TickRecorder) run.strategy()).fires.size(), "open window does not fire");

        // listener helpers outside a window
        AbstractWindowListener loose = new TickRecorder().new Rec(new TickRecorder(),
                new InstrumentGroupRTIndicator(new TickRecorder(), BTC));
        Check.throwsA(IllegalStateException.class, loose::getPrevInstant,
                "getPrevInstant on a listener not registered with window(...) throws");
    }

    static void barRules() throws Exception {
        long m = 60_000;
        // m1 window over 1m bars, exclusive close times: fires after each bar, stamped with the close time
        StrategyRun run = StrategyHarness.start(BarRecorder.class, Map.of(), BTC);
        for (int i = 0; i < 3; i++) {
            run.onKline(i * m, (i + 1) * m, 1, 2, 0.5, 10 + i, 5);
        }
        expectFires("1m bars, m1 window", ((BarRecorder) run.strategy()).fires,
                new long[][] {{0, m}, {m, 2 * m}, {2 * m, 3 * m}},
                new double[][] {{Double.NaN, 10}, {10, 11}, {11, 12}});
        Check.isTrue(Arrays.equals(new long[] {m, 2 * m, 3 * m}, run.signalTs()), "bar signals stamped with close time");
        Check.isTrue(Arrays.equals(new byte[] {-1, -1, -1}, run.signalSide()), "sell sides");

        // inclusive close times behave the same
        run = StrategyHarness.start(BarRecorder.class, Map.of(), BTC);
        for (int i = 0; i < 3; i++) {
            run.onKline(i * m, (i + 1) * m - 1, 1, 2, 0.5, 10 + i, 5);
        }
        Check.equal(3, ((BarRecorder) run.strategy()).fires.size(), "inclusive close times: one fire per bar");
        Check.isTrue(Arrays.equals(new long[] {m - 1, 2 * m - 1, 3 * m - 1}, run.signalTs()), "inclusive stamps");

        // m5 window over 1m bars: fires once per five bars, after the bar that reaches the boundary
        run = StrategyHarness.start(BarRecorder.class, Map.of("period", "300000"), BTC);
        for (int i = 0; i < 11; i++) {
            run.onKline(i * m, (i + 1) * m, 1, 2, 0.5, 100 + i, 5);
        }
        expectFires("1m bars, m5 window", ((BarRecorder) run.strategy()).fires,
                new long[][] {{0, 5 * m}, {5 * m, 10 * m}}, new double[][] {{Double.NaN, 104}, {104, 109}});

        // m1 window over 1h bars: once per bar, the window that holds the bar's open
        long hr = 3_600_000;
        run = StrategyHarness.start(BarRecorder.class, Map.of(), BTC);
        for (int i = 0; i < 3; i++) {
            run.onKline(i * hr, (i + 1) * hr, 1, 2, 0.5, 20 + i, 5);
        }
        expectFires("1h bars, m1 window", ((BarRecorder) run.strategy()).fires,
                new long[][] {{0, m}, {hr, hr + m}, {2 * hr, 2 * hr + m}},
                new double[][] {{Double.NaN, 20}, {20, 21}, {21, 22}});

        // a gap between bars does not fire an empty window
        run = StrategyHarness.start(BarRecorder.class, Map.of(), BTC);
        run.onKline(0, m, 1, 2, 0.5, 1, 5);
        run.onKline(10 * m, 11 * m, 1, 2, 0.5, 2, 5);
        expectFires("bar gap", ((BarRecorder) run.strategy()).fires,
                new long[][] {{0, m}, {10 * m, 11 * m}}, new double[][] {{Double.NaN, 1}, {1, 2}});
    }

    /** Two windows of one instrument share one store; getStateStore returns the same store. */
    public static final class TwoWindows extends AbstractTickerStrategy {
        StateStore seen;

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().sma(3)
                    .window("price", WindowTime.s1, new Counter(this, indicators))
                    .window().windowTime(WindowTime.s5).indicator("sma3").listener(new Counter(this, indicators)).build();
        }

        final class Counter extends AbstractWindowListener {
            Counter(AbstractStrategy s, InstrumentGroupRTIndicator i) {
                super(s, i);
            }

            @Override
            public void onChange(StateStore store, double prev, double actual) {
                store.inc("fires");
                seen = store;
            }
        }
    }

    static void sharedStore() throws Exception {
        StrategyRun run = StrategyHarness.start(TwoWindows.class, Map.of(), BTC);
        for (int t = 0; t <= 10_000; t += 250) {
            run.onTicker(t, 1, 1, 1, 1, 100 + t / 1000.0, 0);
        }
        TwoWindows s = (TwoWindows) run.strategy();
        // s1 closes 10 times (at 1000..10000), s5 twice (at 5000, 10000)
        Check.equal(12, s.seen.count("fires"), "both windows count into one store");
        Check.isTrue(s.getStateStore(BTC).orElseThrow() == s.seen, "getStateStore returns the listeners' store");
    }

    /** EMA(9)/EMA(21) crossover sampled by a 1 s window (the benchmark strategy). */
    public static final class EmaCross extends AbstractTickerStrategy {
        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().ema(9).ema(21).window("ema9", WindowTime.s1, new CrossListener(this, indicators));
        }

        final class CrossListener extends AbstractWindowListener {
            private final CrossDetector cross = new CrossDetector();

            CrossListener(AbstractStrategy s, InstrumentGroupRTIndicator i) {
                super(s, i);
            }

            @Override
            public void onChange(StateStore store, double prev, double actual) {
                if (!indicators.getExisting("ema21").isReady()) {
                    return;
                }
                CrossDetector.Cross c = cross.check(actual, indicators.getValue("ema21"));
                if (c.above()) {
                    emitBuy(indicators.getValue("price"));
                } else if (c.below()) {
                    emitSell(indicators.getValue("price"));
                }
            }
        }
    }

    /** The same strategy with update() overridden (slow path, Ticker records). */
    public static final class EmaCrossOverride extends AbstractTickerStrategy {
        int updates;

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().ema(9).ema(21)
                    .window("ema9", WindowTime.s1, new EmaCross().new CrossListener(this, indicators));
        }

        @Override
        public void update(Ticker ticker) {
            super.update(ticker);
            updates++;
        }
    }

    static void crossoverEndToEnd() throws Exception {
        Random r = new Random(3);
        int n = 20_000;
        long[] ts = new long[n];
        double[] px = new double[n];
        long t = 1_700_000_000_000L;
        double p = 100;
        for (int i = 0; i < n; i++) {
            t += i % 997 == 0 ? 3_700 : 1 + r.nextInt(300);
            p += r.nextGaussian() * 0.05;
            ts[i] = t;
            px[i] = p;
        }
        // independent computation
        double[] e9 = Ref.ema(px, 9);
        double[] e21 = Ref.ema(px, 21);
        List<long[]> expTs = new ArrayList<>();
        List<Double> expPx = new ArrayList<>();
        List<Byte> expSide = new ArrayList<>();
        int rel = 0;
        for (int i = 1; i < n; i++) {
            if (Math.floorDiv(ts[i], 1000) == Math.floorDiv(ts[i - 1], 1000)) {
                continue;
            }
            int k = i - 1; // values at the close: after the last event of the closed window
            if (Double.isNaN(e21[k])) {
                continue;
            }
            int now = e9[k] > e21[k] ? 1 : e9[k] < e21[k] ? -1 : 0;
            if (now == 0) {
                continue;
            }
            if (rel == -1 && now == 1) {
                expTs.add(new long[] {ts[i]});
                expPx.add(px[k]);
                expSide.add((byte) 1);
            } else if (rel == 1 && now == -1) {
                expTs.add(new long[] {ts[i]});
                expPx.add(px[k]);
                expSide.add((byte) -1);
            }
            rel = now;
        }
        StrategyRun fast = StrategyHarness.start(EmaCross.class, Map.of(), BTC);
        StrategyRun slow = StrategyHarness.start(EmaCrossOverride.class, Map.of(), BTC);
        Check.isTrue(fast.usesFastPath(), "a strategy without update() override uses the fast path");
        Check.isFalse(slow.usesFastPath(), "an update() override gets Ticker records");
        for (int i = 0; i < n; i++) {
            fast.onTicker(ts[i], px[i] - 0.01, 1, px[i] + 0.01, 1, px[i], 1);
            slow.onTicker(ts[i], px[i] - 0.01, 1, px[i] + 0.01, 1, px[i], 1);
        }
        Check.equal(n, ((EmaCrossOverride) slow.strategy()).updates, "update() called once per event");
        Check.isTrue(expTs.size() > 10, "the synthetic series crosses often enough (" + expTs.size() + ")");
        Check.equal(expTs.size(), fast.signalCount(), "crossover signal count");
        long[] gotTs = fast.signalTs();
        double[] gotPx = fast.signalPrice();
        byte[] gotSide = fast.signalSide();
        int m = Math.min(expTs.size(), gotTs.length);
        for (int i = 0; i < m; i++) {
            if (expTs.get(i)[0] != gotTs[i] || expSide.get(i) != gotSide[i]
                    || Math.abs(expPx.get(i) - gotPx[i]) > 1e-9) {
                Check.fail("crossover signal " + i + ": expected " + expTs.get(i)[0] + "/" + expSide.get(i) + "/"
                        + expPx.get(i) + " got " + gotTs[i] + "/" + gotSide[i] + "/" + gotPx[i]);
                break;
            }
        }
        Check.isTrue(Arrays.equals(fast.signalTs(), slow.signalTs())
                        && Arrays.equals(fast.signalPrice(), slow.signalPrice())
                        && Arrays.equals(fast.signalSide(), slow.signalSide()),
                "fast path and update() override produce identical signals");
    }
}
