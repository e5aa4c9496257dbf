package com.wualabs.qtsurfer.engine.checks;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.runtime.PropertyInfo;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Runs the example strategies of jvm/test/examples (default package, as users submit them). */
final class ExampleChecks {

    static final Instrument BTC = new Instrument("BTC", "USDT");

    private ExampleChecks() {
    }

    static Class<?> load(String name) throws ClassNotFoundException {
        return Class.forName(name);
    }

    /** Ticks with ~150 ms spacing, a random walk with regime changes (RSI extremes and crossovers happen). */
    static void feedTicks(StrategyRun run, int n, long seed) {
        Random r = new Random(seed);
        long t = 1_700_000_000_000L;
        double p = 30_000;
        double drift = 0;
        for (int i = 0; i < n; i++) {
            if (i % 5_000 == 0) {
                drift = r.nextGaussian() * 0.5;
            }
            t += 20 + r.nextInt(260);
            p = Math.max(100, p + drift + r.nextGaussian() * 6);
            double spread = 0.5 + r.nextDouble();
            run.onTicker(t, p - spread, 1 + r.nextInt(5), p + spread, 1 + r.nextInt(5), p, 1000 + i);
        }
    }

    static void feedBars(StrategyRun run, int n, long seed) {
        Random r = new Random(seed);
        double c = 100;
        for (int i = 0; i < n; i++) {
            double o = c;
            c = Math.max(1, c + r.nextGaussian());
            double h = Math.max(o, c) + Math.abs(r.nextGaussian()) * 0.5;
            double l = Math.min(o, c) - Math.abs(r.nextGaussian()) * 0.5;
            run.onKline(i * 60_000L, (i + 1) * 60_000L, o, h, l, c, 10 + r.nextInt(100));
        }
    }

    static int count(StrategyRun run, int side) {
        int k = 0;
        for (byte b : run.signalSide()) {
            if (b == side) {
                k++;
            }
        }
        return k;
    }

    static void run() throws Exception {
        Check.section("examples");
        StrategyRun run = StrategyHarness.start(load("EmaCrossoverStrategy"), Map.of(), BTC);
        feedTicks(run, 100_000, 1);
        Check.isTrue(count(run, 1) > 0 && count(run, -1) > 0, "EmaCrossoverStrategy emits both sides");

        run = StrategyHarness.start(load("RsiWindowStrategy"), Map.of(), BTC);
        feedTicks(run, 200_000, 2);
        Check.isTrue(run.signalCount() > 0, "RsiWindowStrategy emits (" + run.signalCount() + ")");
        byte[] sides = run.signalSide();
        boolean alternates = true;
        for (int i = 0; i < sides.length; i++) {
            alternates &= sides[i] == (i % 2 == 0 ? 1 : -1);
        }
        Check.isTrue(alternates, "RsiWindowStrategy alternates buy / sell through its store flag");

        run = StrategyHarness.start(load("PeriodicTradeStrategy"), Map.of(), BTC);
        feedTicks(run, 100_000, 3);
        Check.isTrue(count(run, 1) >= 10 && Math.abs(count(run, 1) - count(run, -1)) <= 1,
                "PeriodicTradeStrategy buys on window 60, sells on window 120 (" + run.signalCount() + ")");

        run = StrategyHarness.start(load("BandReversionStrategy"), Map.of(), BTC);
        feedTicks(run, 100_000, 4);
        Check.isTrue(run.signalCount() > 0, "BandReversionStrategy emits");

        Class<?> cfg = load("ConfigurableCrossStrategy");
        List<String> names = new ArrayList<>();
        for (PropertyInfo p : StrategyHarness.declaredProperties(cfg)) {
            names.add(p.name());
        }
        Check.equal(List.of("ema.fast", "ema.slow", "window.seconds"), names, "ConfigurableCrossStrategy properties");
        run = StrategyHarness.start(cfg, Map.of("ema.fast", "5", "window.seconds", "0"), BTC);
        feedTicks(run, 100_000, 5);
        Check.isTrue(run.signalCount() > 0, "ConfigurableCrossStrategy emits with a setter-clamped window");

        run = StrategyHarness.start(load("RelativeStrengthStrategy"), Map.of(), BTC);
        feedTicks(run, 50_000, 6);
        Check.isTrue(count(run, 0) > 0, "RelativeStrengthStrategy emits info signals");
        AbstractTickerStrategy rs = (AbstractTickerStrategy) load("RelativeStrengthStrategy").getDeclaredConstructor()
                .newInstance();
        double nan = Double.NaN;
        for (int i = 0; i < 200; i++) {
            for (String base : new String[] {"BTC", "ETH", "SOL"}) {
                double px = 100 + Math.sin(i / 7.0 + base.length()) * 5 + base.charAt(0);
                rs.update(new Ticker(new Instrument(base, "USDT"), nan, nan, nan, nan, nan, nan, nan, px, nan, nan, nan,
                        nan, 1000L * i));
            }
        }
        Check.equal(3, rs.getInstruments().size(), "RelativeStrengthStrategy tracks every instrument it is fed");

        run = StrategyHarness.start(load("AnalyticsStrategy"), Map.of(), BTC);
        feedTicks(run, 100_000, 7);
        Check.isTrue(count(run, 0) > 0 && run.signalData().get(0).containsKey("zscore"),
                "AnalyticsStrategy emits info signals with fields");
        Check.isTrue(run.signalData().stream().anyMatch(d -> d.containsKey("_m")), "AnalyticsStrategy emits markers");

        run = StrategyHarness.start(load("NoiseFilterStrategy"), Map.of(), BTC);
        feedTicks(run, 100_000, 8);
        Check.equal(ExecutionMode.LONG_MULTI, run.executionMode(), "NoiseFilterStrategy execution mode from the constructor");
        Check.near(0.5, run.percentGain(), "NoiseFilterStrategy percent gain");
        Check.isTrue(run.multiEntryEnabled(), "NoiseFilterStrategy multi entry");
        Check.isTrue(run.notices().stream().anyMatch(n -> n.startsWith("[INFO] setup for BTC/USDT")), "log line");
        StrategyRun doge = StrategyHarness.start(load("NoiseFilterStrategy"), Map.of(), new Instrument("DOGE", "USDT"));
        Check.equal(ExecutionMode.SHORT, doge.executionMode(), "getExecutionMode(instrument) override");

        run = StrategyHarness.start(load("RangeBreakoutKlineStrategy"), Map.of("minRange", "0.8"), BTC);
        feedBars(run, 2_000, 9);
        Check.isTrue(run.signalCount() > 0, "RangeBreakoutKlineStrategy emits on 1m bars");
        Check.isTrue(StrategyHarness.requiredSources(load("RangeBreakoutKlineStrategy")).contains("KLine"), "KLine source");

        run = StrategyHarness.start(load("FundingWatchStrategy"), Map.of(), new Instrument("BTC", "USDT", "USDT"));
        for (int i = 0; i < 100; i++) {
            run.onFunding(i * 60_000L, 0.0001 * Math.sin(i / 5.0), 30_000 + i);
        }
        Check.equal(19, count(run, 0), "FundingWatchStrategy: one info signal per closed 5 min window");
        Check.equal("BTC/USDT:USDT", run.signalData().get(0).get("instrument"), "emitInfo from a listener");
        Check.equal(List.of("FundingRate"), new ArrayList<>(StrategyHarness.requiredSources(load("FundingWatchStrategy"))),
                "funding source");

        Class<?> multi = load("MultiSourceStrategy");
        Check.equal(List.of("Ticker", "KLine", "FundingRate"), new ArrayList<>(StrategyHarness.requiredSources(multi)),
                "multi-source required sources");
        run = StrategyHarness.start(multi, Map.of(), BTC);
        run.onFunding(0, -0.001, Double.NaN);
        run.onKline(0, 60_000, 1, 2, 0.5, 1.5, 10);
        run.onTicker(60_001, 1, 1, 1, 1, 1.6, 1);
        Check.equal(1, run.signalCount(), "MultiSourceStrategy dispatches every source");

        Class<?> qts = load("QtsGeneratedStrategy");
        run = StrategyHarness.start(qts, Map.of(), BTC);
        Check.near(0.5, run.percentGain(), "init code reads a param's default (QTScript init { setPercentGain(gain); })");
        StrategyRun qts2 = StrategyHarness.start(qts, Map.of("gain", "1.25", "fast", "5.0"), BTC);
        Check.near(1.25, qts2.percentGain(), "init code reads the run value of a param");
        feedTicks(qts2, 100_000, 10);
        Check.isTrue(count(qts2, 1) > 0 && count(qts2, 0) > 0, "QtsGeneratedStrategy emits buys and info");
        Check.isTrue(qts2.strategy().getRTIndicator(BTC, "ema5").isPresent(), "ema(fast) named by the run value");
        StrategyRun eur = StrategyHarness.start(qts, Map.of(), new Instrument("BTC", "EUR"));
        eur.onTicker(0, 1, 1, 1, 1, 1, 1);
        Check.isTrue(eur.notices().get(eur.notices().size() - 1).contains("rejected"), "instrument filter");
    }
}
