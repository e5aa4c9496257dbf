package com.wualabs.qtsurfer.engine.checks;

import com.wualabs.qtsurfer.engine.EngineVersion;
import com.wualabs.qtsurfer.engine.core.FundingRate;
import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.runtime.PropertyException;
import com.wualabs.qtsurfer.engine.runtime.PropertyInfo;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import com.wualabs.qtsurfer.engine.strategy.AbstractFundingRateStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractMultiSourceStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.BuySignal;
import com.wualabs.qtsurfer.engine.strategy.CrossDetector;
import com.wualabs.qtsurfer.engine.strategy.InfoStrategySignal;
import com.wualabs.qtsurfer.engine.strategy.KlineInterval;
import com.wualabs.qtsurfer.engine.strategy.MarketDataSource;
import com.wualabs.qtsurfer.engine.strategy.SellSignal;
import com.wualabs.qtsurfer.engine.strategy.StrategyLogger;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;
import com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Data types, properties, signals, store, cross detector, version, logger, harness behaviour, removed names.
 * Long because each area needs its own small test strategies; the sections follow {@link #run()}.
 */
final class ApiChecks {

    static final Instrument BTC = new Instrument("BTC", "USDT");
    static final Instrument ETH = new Instrument("ETH", "USDT");

    private ApiChecks() {
    }

    static void run() throws Exception {
        Check.section("api");
        dataTypes();
        properties();
        signalsAndLog();
        stateStore();
        crossDetector();
        version();
        harness();
        live();
        crossInstrument();
        removedNames();
        uniqueSimpleNames();
    }

    /**
     * Generated QTScript code wildcard-imports every engine package plus the allowed JDK ones: no two public
     * engine types may share a simple name, nor clash with a type of those JDK packages.
     */
    static void uniqueSimpleNames() throws Exception {
        String jar = EngineVersion.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        Map<String, String> seen = new LinkedHashMap<>();
        String[] jdk = {"java.lang.", "java.util.", "java.util.function.", "java.util.stream.", "java.util.regex.",
                "java.util.concurrent.atomic.", "java.time.", "java.time.format.", "java.time.temporal.", "java.math.",
                "java.text."};
        int checked = 0;
        try (java.util.jar.JarFile jf = new java.util.jar.JarFile(jar)) {
            for (java.util.jar.JarEntry e : java.util.Collections.list(jf.entries())) {
                String n = e.getName();
                if (!n.startsWith("com/wualabs/qtsurfer/engine/") || !n.endsWith(".class") || n.contains("$")) {
                    continue;
                }
                String fqcn = n.substring(0, n.length() - 6).replace('/', '.');
                Class<?> c = Class.forName(fqcn);
                if (!java.lang.reflect.Modifier.isPublic(c.getModifiers())) {
                    continue;
                }
                checked++;
                String simple = c.getSimpleName();
                String prev = seen.put(simple, fqcn);
                Check.isTrue(prev == null, "public simple name " + simple + " used twice: " + prev + ", " + fqcn);
                for (String pkg : jdk) {
                    try {
                        Class<?> clash = Class.forName(pkg + simple);
                        Check.isFalse(java.lang.reflect.Modifier.isPublic(clash.getModifiers()),
                                fqcn + " clashes with " + clash.getName());
                    } catch (ClassNotFoundException ok) {
                        // no clash
                    }
                }
            }
        }
        Check.isTrue(checked > 90, "public engine types found in the jar: " + checked);
    }

    // ------------------------------------------------------------------ data types

    static void dataTypes() {
        RecordComponent[] rc = Ticker.class.getRecordComponents();
        List<String> names = new ArrayList<>();
        for (RecordComponent c : rc) {
            names.add(c.getName());
        }
        Check.equal(List.of("instrument", "bid", "bidSize", "ask", "askSize", "open", "high", "low", "last", "vwap",
                "volume", "quoteVolume", "percentageChange", "timestamp"), names, "Ticker components in order");
        Check.equal(long.class, rc[13].getType(), "Ticker timestamp is epoch ms (long)");
        Check.equal("BTC/USDT", BTC.symbol(), "spot symbol");
        Check.equal("BTC/USDT:USDT", new Instrument("btc", "usdt", "usdt").symbol(), "perpetual symbol, upper-cased");
        Instrument dated = Instrument.parse("BTC/USDT:USDT-260327");
        Check.equal("BTC/USDT:USDT-260327", dated.symbol(), "dated symbol round trip");
        Check.equal("USDT", dated.settleCurrency(), "settle currency of a dated contract");
        Check.equal("260327", dated.expiry(), "expiry of a dated contract");
        Check.equal(BTC, Instrument.parse("btc/usdt"), "parse spot");
        Check.isTrue(BTC.settle() == null && BTC.isSpot(), "spot has no settle");
        Kline k = new Kline(BTC, 0, 60_000, 1, 2, 0.5, 1.5, 10);
        Check.isTrue(k.getOpen() == 1 && k.getHigh() == 2 && k.getLow() == 0.5 && k.getClose() == 1.5
                && k.getVolume() == 10 && k.getCloseTime() == 60_000 && k.getOpenTime() == 0
                && k.getInstrument() == BTC, "Kline getters");
        FundingRate f = new FundingRate(BTC, 0.0001, 5);
        Check.isTrue(f.rate() == 0.0001 && f.timestamp() == 5 && Double.isNaN(f.markPrice()), "FundingRate");
        Check.equal(List.of("LONG", "SHORT", "LONG_MULTI"),
                Arrays.stream(ExecutionMode.values()).map(Enum::name).toList(), "ExecutionMode constants");
        Check.equal(List.of("Ticker", "KLine", "FundingRate"),
                Arrays.stream(MarketDataSource.values()).map(Enum::name).toList(), "MarketDataSource constants");
        Check.equal(KlineInterval.h4, KlineInterval.of("4h"), "KlineInterval.of");
    }

    // ------------------------------------------------------------------ properties

    public static final class Props extends AbstractTickerStrategy {
        @StrategyProperty(name = "ema.fast", description = "Fast EMA period", defaultValue = "9", min = 2, max = 50, step = 1)
        private int fast = 10;
        @StrategyProperty(name = "ema.slow", description = "Slow EMA period", defaultValue = "21")
        private int slow;
        @StrategyProperty(name = "ratio", defaultValue = "0.5")
        double ratio;
        @StrategyProperty(name = "flag", defaultValue = "true")
        boolean flag;
        @StrategyProperty(name = "label", defaultValue = "abc")
        String label;
        @StrategyProperty(name = "mode", defaultValue = "SHORT")
        ExecutionMode mode;
        @StrategyProperty(name = "big", defaultValue = "5")
        Long big;
        @StrategyProperty(name = "clamped", defaultValue = "5")
        int clamped;
        int setterCalls;
        @StrategyProperty(name = "shared", defaultValue = "3")
        static int shared;
        @StrategyProperty(name = "fixed", defaultValue = "4")
        final int fixed = 1;
        int viaMethod;
        @StrategyProperty(description = "no name, no default")
        int unnamed;
        int fastAtSetup = -1;
        int fastInConstructor;
        int slowInConstructor;

        public Props() {
            fastInConstructor = fast;
            slowInConstructor = slow;
            setPercentGain(0.25);
        }

        public void setClamped(int v) {
            clamped = Math.min(v, 10);
            setterCalls++;
        }

        @StrategyProperty(name = "via.method", defaultValue = "7")
        public void setViaMethod(int v) {
            viaMethod = v;
        }

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            fastAtSetup = fast;
            indicators.addPrice().ema(fast);
        }
    }

    static Props props(StrategyRun run) {
        return (Props) run.strategy();
    }

    static void properties() throws Exception {
        List<PropertyInfo> infos = StrategyHarness.declaredProperties(Props.class);
        List<String> names = infos.stream().map(PropertyInfo::name).toList();
        Check.equal(List.of("ema.fast", "ema.slow", "ratio", "flag", "label", "mode", "big", "clamped", "shared", "fixed",
                "unnamed", "via.method"), names, "declared property names (fields in order, then setters)");
        PropertyInfo fast = infos.get(0);
        Check.equal(new PropertyInfo("ema.fast", "Fast EMA period", "9", true, 2.0, 50.0, 1.0, "int"), fast,
                "PropertyInfo hints");
        Check.equal(new PropertyInfo("ema.slow", "Slow EMA period", "21", true, null, null, null, "int"), infos.get(1),
                "unset hints are null");
        Check.equal(null, infos.get(10).defaultValue(), "no defaultValue -> null");
        Check.equal(List.of("int", "int", "double", "boolean", "java.lang.String", ExecutionMode.class.getName(),
                "java.lang.Long"), infos.subList(0, 7).stream().map(PropertyInfo::type).toList(),
                "the injected Java type of each property");

        StrategyRun run = StrategyHarness.start(Props.class, Map.of(), BTC);
        Props p = props(run);
        Check.equal(10, p.fastInConstructor, "a field initializer runs after the pre-constructor write");
        Check.equal(21, p.slowInConstructor, "the constructor reads a plain property's default");
        Check.equal(9, p.fast, "defaultValue overrides the field initializer");
        Check.isTrue(run.notices().stream().anyMatch(n -> n.contains("'ema.fast'") && n.contains("set 10")),
                "initializer / defaultValue disagreement is a notice: " + run.notices());
        Check.isFalse(run.notices().stream().anyMatch(n -> n.contains("'ema.slow'")), "no notice without an initializer");
        Check.equal(21, p.slow, "int default");
        Check.near(0.5, p.ratio, "double default");
        Check.equal(true, p.flag, "boolean default");
        Check.equal("abc", p.label, "String default");
        Check.equal(ExecutionMode.SHORT, p.mode, "enum default");
        Check.equal(5L, p.big, "boxed Long default");
        Check.equal(5, p.clamped, "setter used for defaults");
        Check.equal(1, p.setterCalls, "setter called once for the default");
        Check.equal(7, p.viaMethod, "method-declared property");
        Check.equal(0, Props.shared, "a static field without setter is not injected");
        Check.equal(1, p.fixed, "a final field without setter is not injected");
        Check.isTrue(run.notices().stream().anyMatch(n -> n.contains("'shared'") && n.contains("static")),
                "static field notice");
        Check.isTrue(run.notices().stream().anyMatch(n -> n.contains("'fixed'") && n.contains("final")),
                "final field notice");
        Check.near(0.25, run.percentGain(), "setPercentGain from the constructor is recorded");

        run = StrategyHarness.start(Props.class, map("ema.fast", "12.0", "clamped", "50", "flag", "FALSE",
                "mode", "long_multi", "ratio", "1e-3", "label", " spaced ", "ema.slow", "30"), BTC);
        p = props(run);
        Check.equal(12, p.fast, "\"12.0\" is accepted for an int property");
        Check.equal(30, p.slowInConstructor, "the constructor reads the run value of a plain property");
        Check.equal(10, p.clamped, "params go through the setter");
        Check.equal(2, p.setterCalls, "setter called for default then param");
        Check.equal(false, p.flag, "boolean param is case-insensitive");
        Check.equal(ExecutionMode.LONG_MULTI, p.mode, "enum param is case-insensitive");
        Check.near(0.001, p.ratio, "double param");
        Check.equal(" spaced ", p.label, "String param kept verbatim");
        run.onTicker(0, 1, 1, 1, 1, 1, 1);
        Check.equal(12, p.fastAtSetup, "injection happens before setupIndicators");

        PropertyException e = Check.throwsA(PropertyException.class,
                () -> StrategyHarness.start(Props.class, Map.of("ema.fast", "9.5"), BTC), "9.5 for an int");
        Check.isTrue(e != null && e.getMessage().contains("ema.fast"), "the message names the property");
        e = Check.throwsA(PropertyException.class,
                () -> StrategyHarness.start(Props.class, Map.of("nope", "1"), BTC), "unknown key");
        Check.isTrue(e != null && e.getMessage().contains("'nope'") && e.getMessage().contains("ema.fast, ema.slow"),
                "the message lists the declared names: " + (e == null ? "" : e.getMessage()));
        Check.throwsA(PropertyException.class,
                () -> StrategyHarness.start(Props.class, Map.of("flag", "maybe"), BTC), "bad boolean");
        Check.throwsA(PropertyException.class,
                () -> StrategyHarness.start(Props.class, Map.of("mode", "LONG_SHORT"), BTC), "bad enum constant");

        run = StrategyHarness.start(Props.class, map("executionMode", "SHORT", "percentGain", "1.5",
                "multiEntryEnabled", "true"), BTC);
        Check.equal(ExecutionMode.SHORT, run.executionMode(), "engine key executionMode");
        Check.near(1.5, run.percentGain(), "engine key percentGain overrides the constructor");
        Check.isTrue(run.multiEntryEnabled(), "engine key multiEntryEnabled");

        StrategyRun plain = StrategyHarness.start(GroupChecks.Bare.class, null, BTC);
        Check.equal(ExecutionMode.LONG, plain.executionMode(), "default execution mode LONG");
        Check.isTrue(Double.isNaN(plain.percentGain()), "percentGain NaN when unset");
        Check.isFalse(plain.multiEntryEnabled(), "multiEntry false by default");
        Check.isTrue(StrategyHarness.declaredProperties(GroupChecks.Bare.class).isEmpty(), "no properties");
        e = Check.throwsA(PropertyException.class,
                () -> StrategyHarness.start(GroupChecks.Bare.class, Map.of("x", "1"), BTC), "unknown key, none declared");
        Check.isTrue(e != null && e.getMessage().contains("(none)"), "message says none are declared");

        Check.throwsA(PropertyException.class, () -> StrategyHarness.start(BadDefault.class, Map.of(), BTC),
                "an unparsable defaultValue fails the start");
        StrategyRun guarded = StrategyHarness.start(Guarded.class, Map.of("v", "2"), BTC);
        Check.equal(2, ((Guarded) guarded.strategy()).v, "a valid param passes the setter");
        e = Check.throwsA(PropertyException.class, () -> StrategyHarness.start(Guarded.class, Map.of("v", "-1"), BTC),
                "a setter rejecting a value");
        Check.isTrue(e != null && e.getMessage().contains("must be positive"), "the setter's message is kept");
    }

    public static final class BadDefault extends AbstractTickerStrategy {
        @StrategyProperty(name = "n", defaultValue = "three")
        int n;

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        }
    }

    public static final class Guarded extends AbstractTickerStrategy {
        @StrategyProperty(name = "v", defaultValue = "1")
        int v;

        public void setV(int value) {
            if (value <= 0) {
                throw new IllegalArgumentException("v must be positive");
            }
            v = value;
        }

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        }
    }

    static Map<String, String> map(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    // ------------------------------------------------------------------ signals and log

    public static final class Emitter extends AbstractTickerStrategy {
        int n;

        public Emitter() {
            emitBuy(new Instrument("X", "Y"), 1);
            log.info("constructed on engine {}", getEngineVersion());
        }

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice();
        }

        @Override
        public void update(Ticker ticker) {
            super.update(ticker);
            Instrument i = ticker.instrument();
            n++;
            switch (n) {
                case 1: emitBuy(i, ticker.last()); break;
                case 2: emitSell(i, ticker.last()); break;
                case 3: emitSignal(new BuySignal(i, 11).set("why", "breakout")); break;
                case 4: emitSignal(new SellSignal(i, 12)); break;
                case 5: {
                    InfoStrategySignal s = createInfoStrategySignal(i);
                    s.set("zscore", 1.5);
                    s.set("_m", "position", "belowBar", "shape", "arrowUp", "color", "#26a69a", "text", "BUY");
                    Check.isTrue(s.has("zscore") && s.get("zscore").equals(1.5) && s.getInstrument() == i,
                            "InfoStrategySignal set/get/has/getInstrument");
                    emitSignal(s);
                    s.set("after", 1);
                    break;
                }
                case 6: emitInfo("funding", 0.01, "instrument", i.symbol()); break;
                case 7: emitBuy(i, Double.NaN); break;
                default:
                    log.info("tick {} price {}", "same", 1);
                    log.warn("escaped \\{} and {} missing {}", 5);
                    break;
            }
        }
    }

    static void signalsAndLog() throws Exception {
        StrategyRun run = StrategyHarness.start(Emitter.class, Map.of(), BTC);
        for (int t = 1; t <= 10; t++) {
            run.onTicker(t * 100L, 1, 1, 1, 1, 100 + t, 1);
        }
        Check.equal(6, run.signalCount(), "six signals recorded (constructor and NaN-priced ones dropped)");
        Check.isTrue(Arrays.equals(new long[] {100, 200, 300, 400, 500, 600}, run.signalTs()), "signal times");
        Check.isTrue(Arrays.equals(new byte[] {1, -1, 1, -1, 0, 0}, run.signalSide()), "signal sides");
        double[] px = run.signalPrice();
        Check.isTrue(px[0] == 101 && px[1] == 102 && px[2] == 11 && px[3] == 12 && Double.isNaN(px[4])
                && Double.isNaN(px[5]), "signal prices: " + Arrays.toString(px));
        List<Map<String, Object>> data = run.signalData();
        Check.equal(Map.of(), data.get(0), "plain buy carries no data");
        Check.equal(Map.of("why", "breakout"), data.get(2), "BuySignal fields");
        Map<String, Object> info = data.get(4);
        Check.equal(1.5, info.get("zscore"), "info field");
        Check.equal(List.of("zscore", "_m"), new ArrayList<>(info.keySet()), "info keys in insertion order, no later edits");
        Check.equal("{position=belowBar, shape=arrowUp, color=#26a69a, text=BUY}", String.valueOf(info.get("_m")),
                "_m marker map");
        Check.equal("{funding=0.01, instrument=BTC/USDT}", String.valueOf(data.get(5)), "emitInfo alternating keys");
        Check.isTrue(Arrays.equals(new int[] {2, 4, 5}, run.signalFieldIndices()),
                "only the signals with fields are listed: " + Arrays.toString(run.signalFieldIndices()));
        Check.equal(List.of(data.get(2), data.get(4), data.get(5)), run.signalFields(),
                "the sparse fields are the dense list's non-empty maps, in order");
        List<String> notices = run.notices();
        Check.isTrue(notices.contains("a signal emitted before the first data event was ignored"), "early signal notice");
        Check.isTrue(notices.stream().anyMatch(x -> x.startsWith("a buy signal with a non-finite price")), "NaN price notice");
        Check.isTrue(notices.contains("[INFO] constructed on engine " + EngineVersion.getVersion()),
                "log lines become notices: " + notices);
        Check.isTrue(notices.contains("[INFO] tick same price 1 (repeated 3 times)"), "repeated log lines are counted");
        Check.isTrue(notices.contains("[WARN] escaped {} and 5 missing {} (repeated 3 times)"), "{} escapes and missing args");
        Check.equal("a [1, 2] b", StrategyLogger.format("a {} b", (Object) new int[] {1, 2}), "array formatting");
        Check.equal("x java.lang.RuntimeException: boom", StrategyLogger.format("x", new RuntimeException("boom")),
                "trailing throwable appended");
        StrategyRun noisy = StrategyHarness.start(Noisy.class, Map.of(), BTC);
        for (int t = 0; t < 1000; t++) {
            noisy.onTicker(t, 1, 1, 1, 1, t, 1);
        }
        List<String> capped = noisy.notices();
        Check.isTrue(capped.size() <= 201 && capped.get(capped.size() - 1).contains("suppressed"),
                "notices are capped with a closing count (" + capped.size() + ")");
    }

    public static final class Noisy extends AbstractTickerStrategy {
        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        }

        @Override
        public void update(Ticker ticker) {
            log.debug("tick {}", ticker.timestamp());
        }
    }

    // ------------------------------------------------------------------ store, cross, version

    static void stateStore() {
        StateStore s = new StateStore();
        Check.equal(1, s.inc("c"), "inc returns the new value");
        long asLong = s.inc("c");
        Check.equal(2L, asLong, "inc assignable to long");
        Check.equal(1, s.dec("c"), "dec");
        Check.isFalse(s.is("f"), "flags start false");
        s.set("f");
        Check.isTrue(s.is("f"), "set");
        s.unset("f");
        Check.isFalse(s.is("f"), "unset");
        Check.near(1.5, s.add("acc", 1.5), "add returns the accumulator");
        Check.near(1.0, s.add("acc", -0.5), "add accumulates");
        Check.equal("d", s.getState("o", "d"), "getState default");
        s.setState("o", 42);
        Integer got = s.getState("o", 0);
        Check.equal(42, got, "setState / getState");
        s.set("c");
        Check.equal(1, s.count("c"), "key spaces are independent");
        Check.isTrue(s.is("c"), "flag with a counter's key");
    }

    static void crossDetector() {
        CrossDetector d = new CrossDetector();
        Check.equal(CrossDetector.Cross.NONE, d.check(1, 2), "first call reports nothing");
        Check.equal(CrossDetector.Cross.NONE, d.check(1, 2), "still below");
        CrossDetector.Cross c = d.check(3, 2);
        Check.isTrue(c.above() && !c.below(), "cross above");
        Check.equal(CrossDetector.Cross.NONE, d.check(2, 2), "touch reports nothing");
        c = d.check(1, 2);
        Check.isTrue(c.below() && !c.above(), "cross below through a touch");
        Check.equal(CrossDetector.Cross.NONE, d.check(2, 2), "touch");
        Check.equal(CrossDetector.Cross.NONE, d.check(1, 2), "touch and back is no cross");
        Check.equal(CrossDetector.Cross.NONE, d.check(Double.NaN, 2), "NaN reports nothing");
        Check.isTrue(d.check(5, 2).above(), "NaN did not change the state");
        CrossDetector e = new CrossDetector();
        Check.equal(CrossDetector.Cross.NONE, e.check(2, 2), "first equal");
        Check.equal(CrossDetector.Cross.NONE, e.check(3, 2), "first strict observation after an equal: nothing");
    }

    static void version() {
        Check.equal("1.0.0", EngineVersion.getVersion(), "engine version from the jar metadata");
        Check.equal(1, EngineVersion.getMajor(), "major");
        Check.equal(0, EngineVersion.getMinor(), "minor");
        Check.equal(0, EngineVersion.getPatch(), "patch");
        Check.equal("unknown", EngineVersion.UNKNOWN, "UNKNOWN");
        Check.equal(-1, EngineVersion.UNKNOWN_COMPONENT, "UNKNOWN_COMPONENT");
        GroupChecks.Bare s = new GroupChecks.Bare();
        Check.isTrue(s.getEngineVersion().equals("1.0.0") && s.getEngineVersionMajor() == 1
                && s.getEngineVersionMinor() == 0, "strategy accessors");
    }

    // ------------------------------------------------------------------ harness

    public static final class BtcOnly extends AbstractTickerStrategy {
        @Override
        public boolean acceptInstrument(Instrument instrument) {
            return instrument.base().equals("ETH");
        }

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            throw new AssertionError("setupIndicators must not run for a rejected instrument");
        }
    }

    public static final class Bars extends AbstractKlineStrategy {
        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            setupBars(this, indicators);
        }
    }

    static void setupBars(com.wualabs.qtsurfer.engine.strategy.AbstractStrategy s, InstrumentGroupRTIndicator indicators) {
        {
            indicators.addPrice().add("open", com.wualabs.qtsurfer.engine.strategy.TickerValueSource.Open)
                    .add("vol", com.wualabs.qtsurfer.engine.strategy.TickerValueSource.Volume)
                    .add("atr", new com.wualabs.qtsurfer.engine.indicators.volatility.pro.AtrRTIndicator(2))
                    .window("price", java.time.Duration.ofMinutes(1), new WindowChecks.TickRecorder().new Rec(s, indicators));
        }
    }

    public static final class BarsOverride extends AbstractKlineStrategy {
        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            setupBars(this, indicators);
        }

        @Override
        public void update(Kline kline) {
            super.update(kline);
        }
    }

    public static final class Rates extends AbstractFundingRateStrategy {
        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addRate().addPrice().ema("rateEma", "rate", 2);
        }

        @Override
        public void update(FundingRate f) {
            super.update(f);
            var ind = getRTIndicator(f.instrument(), "rateEma").orElseThrow();
            if (ind.isReady()) {
                emitInfo("rate", f.rate(), "ema", ind.getValue(), "mark", getRTIndicator(f.instrument(), "price")
                        .map(RTIndicator::getValue).orElse(Double.NaN));
            }
        }
    }

    public static final class Multi extends AbstractMultiSourceStrategy {
        @Override
        public Set<MarketDataSource> getRequiredSources() {
            return EnumSet.of(MarketDataSource.KLine, MarketDataSource.Ticker);
        }

        @Override
        public KlineInterval getKlineInterval() {
            return KlineInterval.m1;
        }

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().addRate();
        }
    }

    public static final class MultiNoInterval extends AbstractMultiSourceStrategy {
        @Override
        public Set<MarketDataSource> getRequiredSources() {
            return Set.of(MarketDataSource.KLine);
        }

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        }
    }

    static void harness() throws Exception {
        Check.equal(List.of("Ticker"), new ArrayList<>(StrategyHarness.requiredSources(Props.class)), "ticker source");
        Check.equal(List.of("KLine"), new ArrayList<>(StrategyHarness.requiredSources(Bars.class)), "kline source");
        Check.equal(List.of("FundingRate"), new ArrayList<>(StrategyHarness.requiredSources(Rates.class)), "funding");
        Check.equal(List.of("Ticker", "KLine"), new ArrayList<>(StrategyHarness.requiredSources(Multi.class)), "multi");
        Check.throwsA(IllegalStateException.class, () -> StrategyHarness.start(MultiNoInterval.class, Map.of(), BTC),
                "KLine required without an interval");
        Check.throwsA(IllegalArgumentException.class, () -> StrategyHarness.start(String.class, Map.of(), BTC),
                "not a strategy");
        Check.throwsA(IllegalArgumentException.class,
                () -> StrategyHarness.start(AbstractTickerStrategy.class, Map.of(), BTC), "abstract class");

        StrategyRun rejected = StrategyHarness.start(BtcOnly.class, Map.of(), BTC);
        rejected.onTicker(0, 1, 1, 1, 1, 1, 1);
        rejected.onTicker(1, 1, 1, 1, 1, 1, 1);
        Check.equal(0, rejected.signalCount(), "rejected instrument: no signals");
        Check.equal(List.of("instrument BTC/USDT was rejected by acceptInstrument(); no events were processed"),
                rejected.notices(), "rejection notice");
        Check.isTrue(rejected.strategy().getInstruments().isEmpty(), "a rejected instrument is not tracked");

        StrategyRun bars = StrategyHarness.start(Bars.class, Map.of(), BTC);
        StrategyRun barsSlow = StrategyHarness.start(BarsOverride.class, Map.of(), BTC);
        Check.isTrue(bars.usesFastPath() && !barsSlow.usesFastPath(), "kline fast path detection");
        for (int i = 0; i < 5; i++) {
            bars.onKline(i * 60_000L, (i + 1) * 60_000L, 10 + i, 12 + i, 9 + i, 11 + i, 100 + i);
            barsSlow.onKline(i * 60_000L, (i + 1) * 60_000L, 10 + i, 12 + i, 9 + i, 11 + i, 100 + i);
        }
        var g = bars.strategy().getRTIndicator(BTC, "open").orElseThrow();
        Check.near(14, g.getValue(), "kline Open field");
        Check.near(104, bars.strategy().getRTIndicator(BTC, "vol").orElseThrow().getValue(), "kline Volume field");
        Check.near(15, bars.strategy().getRTIndicator(BTC, "price").orElseThrow().getValue(), "kline price = close");
        double[] tr = {3, 3, 3, 3, 3};
        Check.near(Ref.mma(tr, 2)[4], bars.strategy().getRTIndicator(BTC, "atr").orElseThrow().getValue(),
                "bar indicator fed real bars");
        Check.equal(5, bars.signalCount(), "kline windows fired");
        Check.isTrue(Arrays.equals(bars.signalTs(), barsSlow.signalTs())
                && Arrays.equals(bars.signalPrice(), barsSlow.signalPrice()), "kline fast path == update() override");

        StrategyRun rates = StrategyHarness.start(Rates.class, Map.of(), BTC);
        Check.isFalse(rates.usesFastPath(), "funding update() override");
        rates.onFunding(1000, 0.001, 50_000);
        rates.onFunding(2000, 0.003, 50_100);
        Check.equal(1, rates.signalCount(), "funding info signal once the EMA is ready");
        Check.equal("{rate=0.003, ema=0.002, mark=50100.0}", String.valueOf(rates.signalData().get(0)),
                "funding rate / ema / mark price");

        StrategyRun multi = StrategyHarness.start(Multi.class, Map.of(), BTC);
        multi.onTicker(1000, 1, 1, 1, 1, 101, 1);
        multi.onKline(0, 60_000, 1, 1, 1, 99, 1);
        multi.onFunding(61_000, 0.0002, Double.NaN);
        Check.near(99, multi.strategy().getRTIndicator(BTC, "price").orElseThrow().getValue(),
                "multi-source: a funding event without mark price leaves price unchanged");
        Check.near(0.0002, multi.strategy().getRTIndicator(BTC, "rate").orElseThrow().getValue(), "multi-source rate");
        StrategyRun tick = StrategyHarness.start(Props.class, Map.of(), BTC);
        Check.throwsA(IllegalStateException.class, () -> tick.onKline(0, 1, 1, 1, 1, 1, 1),
                "a ticker strategy fed a kline");
    }

    /**
     * What a live session adds to a run: new property values on a running strategy (converted as at
     * start, checked before anything is written), a signal log read and cleared batch by batch, and
     * commands.
     */
    static void live() throws Exception {
        StrategyRun run = StrategyHarness.start(Props.class, Map.of("ema.fast", "5"), BTC);
        Props p = (Props) run.strategy();
        StrategyHarness.setProperties(run, Map.of("ratio", "0.75", "clamped", "40", "percentGain", "1.5"));
        Check.near(0.75, p.ratio, "setProperties writes a field");
        Check.equal(10, p.clamped, "setProperties goes through the setter");
        Check.equal(5, p.fast, "setProperties leaves other properties (no defaults again)");
        Check.near(1.5, run.percentGain(), "setProperties applies engine keys");
        Check.throwsA(com.wualabs.qtsurfer.engine.runtime.PropertyException.class,
                () -> StrategyHarness.setProperties(run, Map.of("ratio", "0.1", "nope", "1")), "unknown key");
        Check.throwsA(com.wualabs.qtsurfer.engine.runtime.PropertyException.class,
                () -> StrategyHarness.setProperties(run, Map.of("ratio", "0.1", "ema.slow", "x")), "bad value");
        Check.near(0.75, p.ratio, "a refused update writes nothing");

        StrategyRun bars = StrategyHarness.start(Bars.class, Map.of(), BTC);
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            bars.onKline(i * 60_000L, (i + 1) * 60_000L, 10 + i, 12 + i, 9 + i, 11 + i, 100 + i);
            for (long t : bars.signalTs()) {
                seen.add(t);
            }
            bars.clearSignals();
            Check.equal(0, bars.signalCount(), "clearSignals empties the log");
        }
        Check.equal(List.of(60_000L, 120_000L, 180_000L, 240_000L, 300_000L), seen,
                "signals read and cleared bar by bar");

        java.util.LinkedHashMap<String, String> props = new java.util.LinkedHashMap<>();
        props.put("qty", "2");
        props.put("command", "not the text");
        com.wualabs.qtsurfer.engine.strategy.CommandRequest request =
                new com.wualabs.qtsurfer.engine.strategy.CommandRequest("buy", props);
        props.put("later", "x");
        Check.equal("buy", request.getCommand(), "command text");
        Check.equal("not the text", request.get("command"), "no property name is reserved");
        Check.equal(List.of("qty", "command"), new ArrayList<>(request.getProperties().keySet()),
                "properties copied, in order");
        Check.throwsA(UnsupportedOperationException.class, () -> request.getProperties().put("a", "b"),
                "properties read-only");
        Check.isFalse(request.has("later"), "absent property");
    }

    public static final class Market extends AbstractTickerStrategy {
        final List<Double> seen = new ArrayList<>();

        @Override
        public boolean acceptInstrument(Instrument instrument) {
            return true;
        }

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice();
        }

        @Override
        public void update(Ticker ticker) {
            super.update(ticker);
            seen.clear();
            for (Instrument other : getInstruments()) {
                getRTIndicator(other, "price").filter(RTIndicator::isReady).ifPresent(ind -> seen.add(ind.getValue()));
            }
            if (seen.size() == 2) {
                emitBuy(ticker.instrument(), seen.get(0) + seen.get(1));
            }
        }
    }

    static void crossInstrument() {
        Market m = new Market();
        double nan = Double.NaN;
        m.update(new Ticker(BTC, nan, nan, nan, nan, nan, nan, nan, 100, nan, nan, nan, nan, 1));
        Check.equal(List.of(100.0), m.seen, "one instrument tracked");
        m.update(new Ticker(ETH, nan, nan, nan, nan, nan, nan, nan, 10, nan, nan, nan, nan, 2));
        Check.equal(List.of(100.0, 10.0), m.seen, "two instruments, each with its own group");
        Check.equal(List.of(BTC, ETH), new ArrayList<>(m.getInstruments()), "getInstruments in first-seen order");
        Check.isTrue(m.getRTIndicator(new Instrument("SOL", "USDT"), "price").isEmpty(), "untracked instrument -> empty");
        Check.isTrue(m.getRTIndicator(BTC, "nope").isEmpty(), "unknown name -> empty");
        Check.isTrue(m.getStateStore(BTC).orElseThrow() != m.getStateStore(ETH).orElseThrow(), "one store per instrument");
    }

    // ------------------------------------------------------------------ removed names

    static void removedNames() {
        for (String cls : new String[] {"com.wualabs.qtsurfer.engine.strategy.AbstractOnChangeListener",
                "com.wualabs.qtsurfer.engine.core.state.StateStoreSupport",
                "com.wualabs.qtsurfer.engine.strategy.annotation.StrategyProperty",
                "com.wualabs.qtsurfer.engine.core.Instrument"}) {
            try {
                Class.forName(cls);
                Check.fail(cls + " must not exist");
            } catch (ClassNotFoundException e) {
                Check.isTrue(true, cls);
            }
        }
        for (Class<?> c : new Class<?>[] {AbstractTickerStrategy.class,
                com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener.class, InstrumentGroupRTIndicator.class}) {
            for (java.lang.reflect.Method m : allMethods(c)) {
                String n = m.getName();
                Check.isFalse(n.equals("detectCrossAbove") || n.equals("detectCrossBelow") || n.equals("initStore")
                        || n.equals("globalStateStore"), c.getSimpleName() + " must not have " + n);
            }
        }
        try {
            com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener.class.getDeclaredField("store");
            Check.fail("AbstractWindowListener must not have a 'store' field");
        } catch (NoSuchFieldException e) {
            Check.isTrue(true, "no listener store field");
        }
    }

    static List<java.lang.reflect.Method> allMethods(Class<?> c) {
        List<java.lang.reflect.Method> out = new ArrayList<>();
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            out.addAll(Arrays.asList(k.getDeclaredMethods()));
        }
        return out;
    }
}
