package com.wualabs.backtestd.host;

import java.util.Map;

/**
 * Build-time only: the workload {@code jvm/build.sh} runs once with
 * {@code -XX:ArchiveClassesAtExit} to write the engine host's class-data archive
 * ({@code backtestd-engine.jsa}, docs/engine-host.md "Class-data archive"). Every host then maps
 * the classes this loaded (the engine, the host, javac, the JDK classes they use) instead of
 * parsing and verifying them again: a host starts with about a third less CPU, and its first
 * compile and first runs load no class from the jar.
 *
 * <p>It loads what a host loads: every engine class ({@link HostMain#initialiseEngineClasses}),
 * javac through {@link CompileService} on a small strategy, and the run path through the
 * {@link WarmUp}'s plan (feed loops, harness, group, indicators, signal log, collection).
 *
 * <p>The JVM archives the training strategy's classes too (defined by a sandbox loader): a loader
 * would take one from the archive only when defining a class of the same name, size and CRC-32,
 * and {@code build.sh} names the strategy with a nonce of its own, so no user class ever
 * matches. Nothing here runs in a host.
 */
final class ArchiveTraining {

    private static final String STRATEGY = String.join("\n",
            "import com.wualabs.qtsurfer.engine.core.state.StateStore;",
            "import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;",
            "import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;",
            "import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;",
            "import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;",
            "import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;",
            "public class %s extends AbstractKlineStrategy {",
            "    @StrategyProperty(name = \"fast\", description = \"fast\", defaultValue = \"10\")",
            "    private int fast = 10;",
            "    @Override",
            "    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {",
            "        indicators.addPrice().sma(\"fast\", fast).ema(\"slow\", 2 * fast).diff(\"d\", \"fast\", \"slow\")",
            "            .window(\"d\", WindowTime.s1, new AbstractWindowListener(this, indicators) {",
            "                @Override",
            "                public void onChange(StateStore store, double prev, double actual) {",
            "                    if (prev <= 0 && actual > 0) { emitBuy(indicators.getValue(\"price\")); }",
            "                }",
            "            });",
            "    }",
            "}",
            "");

    private ArchiveTraining() {}

    public static void main(String[] args) throws Exception {
        HostMain.initialiseEngineClasses();
        Guard.Limits limits = new Guard.Limits(60_000_000_000L, 120_000_000_000L, 4L << 20);
        String name = args.length > 0 ? args[0] : "Training";
        Map<String, Object> compiled = new CompileService(System.getProperty("java.class.path"))
                .compile(STRATEGY.formatted(name), name, limits, limits);
        if (!Boolean.TRUE.equals(compiled.get("success"))) {
            throw new IllegalStateException("the training strategy did not compile: " + compiled);
        }
        WarmUp warm = WarmUp.start();
        while (!warm.ended()) {
            Thread.sleep(20);
        }
        System.err.println("archive training: warm-up " + Json.write(warm.status()));
        System.exit(0);
    }
}
