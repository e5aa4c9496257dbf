package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.internal.RunSeries;
import com.wualabs.qtsurfer.engine.internal.SeriesCache;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The engine host's built-in warm-up: synthetic klines and tickers through the real feed loops
 * ({@link Feeder}), the harness ({@link StrategyHarness}, {@link StrategyRun}), the group driver,
 * the common indicators, windows and listeners, the signal log and the answer's collection
 * ({@link RunService#collect}), so that the JIT has compiled the engine's hot paths before the
 * first user run instead of during it (about 1.9 CPU s of a first 100-vector sweep on a fresh
 * server was that compilation).
 *
 * <p>Trusted engine code only: the strategies below are defined by the host's own loader, never by
 * a sandbox loader, and nothing here writes static state (the engine has none a run can change,
 * and {@code DeclaredProperties}' per-class cache is keyed by these classes). Each pass builds its
 * own strategy instances and data, which become garbage when it ends.
 *
 * <p>It runs on its own daemon thread after the host has greeted its parent, so it never delays
 * start-up, and it stays off the request path: while the host serves a {@code compile} or a
 * {@code ping} the warm-up {@link #pause pauses} at its next slice of {@link #SLICE} rows (well
 * under a millisecond once compiled) and resumes afterwards; the first {@code run} or
 * {@code run_batch} {@link #stop stops} it for good, since the user's own run warms the same
 * paths from then on and a second busy thread would only slow it. Its total work is bounded
 * ({@link #PASSES} passes of {@link #ROWS} rows: 0.14-0.22 CPU s on its own thread, about 1 CPU s
 * of the JVM's with the JIT's compilations, on the 2-core development machine, docs/benchmarks.md).
 *
 * <p>One listener class ({@link Listener}) serves every pass: a sweep's vectors share one loaded
 * strategy class ({@link SharedLoaders}), so the listener call in the window code sees the
 * warm-up's class and the user's, a call C2 still inlines. (Three warm-up classes made it
 * megamorphic, which cost a warm sweep 12-16 %.)
 *
 * <p>The code C2 compiles here is what user runs keep using, so the warm-up's profile shapes the
 * steady state, not only the first sweep. Change the mix only with
 * {@code benchmarks/bench_engine_batch.py} side by side, over several runs (docs/benchmarks.md).
 */
final class WarmUp implements Runnable {
    /** Rows of each synthetic column set (one-second bars or ticks, with gaps). */
    static final int ROWS = 32_768;
    /** Passes over the synthetic data; each runs every warm-up strategy once. */
    static final int PASSES = 4;
    /** Rows fed between two looks at {@link #pause}/{@link #stop}. */
    static final int SLICE = 4_096;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final Instrument INSTRUMENT = new Instrument("WARM", "UP");

    /** Longest a request waits for the warm-up to reach the end of its slice. */
    private static final long QUIET_WAIT_MS = 2_000;

    /**
     * The warm-up's own series (user runs take their SMAs and EMAs from series computed ahead,
     * so the warm-up's do too: the step the JIT compiles here is the one user runs take).
     */
    private final SeriesCache series = new SeriesCache(8L << 20);

    private final Object lock = new Object();
    private boolean paused;
    private boolean stopped;
    /** The warm-up thread is waiting between two slices (paused). */
    private boolean parked;
    /** The warm-up thread has left {@link #run}, however it ended. */
    private boolean ended;
    private volatile String state = "running";
    private volatile long rows;
    private volatile long cpuNanos;
    private volatile long wallNanos;

    /** One strategy run of a pass. */
    private record Step(Class<?> strategy, Map<String, String> params, ColumnSet columns) {}

    private WarmUp() {}

    /** Starts the warm-up on its own daemon thread and returns its handle. */
    static WarmUp start() {
        WarmUp warm = new WarmUp();
        Thread t = new Thread(warm, "engine-warm-up");
        t.setDaemon(true);
        t.start();
        return warm;
    }

    /**
     * A request is being served: hold still at the next slice until {@link #resume}. Returns
     * once the warm-up thread is between slices or has ended, so the request never shares a
     * core with it and the JVM's error counts read afterwards are the request's alone.
     */
    void pause() {
        synchronized (lock) {
            paused = true;
            awaitQuiet();
        }
    }

    /** The request is answered: carry on. */
    void resume() {
        synchronized (lock) {
            paused = false;
            lock.notifyAll();
        }
    }

    /** A user run arrived: end the warm-up at the next slice, for good; returns once it is
     *  parked or gone (see {@link #pause}). */
    void stop() {
        synchronized (lock) {
            stopped = true;
            lock.notifyAll();
            awaitQuiet();
        }
    }

    /** Whether the warm-up thread has ended (nothing left to pause, stop or resume). */
    boolean ended() {
        synchronized (lock) {
            return ended;
        }
    }

    /**
     * With {@link #lock} held: wait until the warm-up thread parks or ends, at most one slice
     * (well under a millisecond once compiled), bounded by {@link #QUIET_WAIT_MS} in case the
     * thread cannot get there.
     */
    private void awaitQuiet() {
        long deadline = System.nanoTime() + QUIET_WAIT_MS * 1_000_000;
        boolean interrupted = false;
        while (!parked && !ended) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            try {
                lock.wait(left);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** For {@code ping}: state ({@code running}, {@code done}, {@code stopped}, {@code failed}), rows fed, CPU. */
    Map<String, Object> status() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("state", state);
        s.put("rows", rows);
        s.put("cpu_ns", cpuNanos);
        s.put("wall_ns", wallNanos);
        return s;
    }

    @Override
    public void run() {
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        String end = "failed"; // until the plan completes or is stopped
        try {
            ColumnSet klines = klines(ROWS, 11);
            ColumnSet tickers = tickers(ROWS, 12);
            outer:
            for (int pass = 0; pass < PASSES; pass++) {
                int shift = pass * 3; // other parameters each pass, as a sweep's vectors
                List<Step> plan = List.of(
                        new Step(SmaCross.class, Map.of("fast", String.valueOf(5 + shift),
                                "slow", String.valueOf(20 + 4 * shift)), klines),
                        new Step(EmaCross.class, Map.of("fast", String.valueOf(8 + shift)),
                                klines),
                        new Step(Levels.class, Map.of("length", String.valueOf(15 + shift)),
                                klines),
                        new Step(TickerCross.class, Map.of("slow", String.valueOf(30 + shift)),
                                tickers),
                        new Step(TickerLevels.class, Map.of(), tickers));
                for (Step step : plan) {
                    if (!feed(step.strategy(), step.params(), step.columns())) {
                        end = "stopped";
                        break outer;
                    }
                }
            }
            if (!"stopped".equals(end)) {
                end = "done";
            }
        } catch (Exception | LinkageError e) {
            System.err.println("engine host: warm-up failed (the first run pays for it): " + e);
        } finally {
            cpuNanos = THREADS.getCurrentThreadCpuTime() - cpu0;
            wallNanos = System.nanoTime() - wall0;
            state = end;
            synchronized (lock) {
                ended = true;
                lock.notifyAll();
            }
        }
    }

    /** One strategy over all rows, slice by slice; false when stopped. */
    private boolean feed(Class<?> strategy, Map<String, String> params, ColumnSet columns)
            throws Exception {
        StrategyRun run = StrategyHarness.start(strategy, params, INSTRUMENT);
        RunSeries taken = null;
        if (run.usesFastPathFor(columns.kind)) {
            taken = RunService.seriesOf(series, "warm-up:" + columns.kind + ":" + columns.rows,
                    columns, new int[] {0, columns.rows}, INSTRUMENT);
            StrategyInternals.useSeries(run.strategy(), taken);
        }
        try {
            long[] progress = new long[2];
            for (int at = 0; at < columns.rows; at += SLICE) {
                if (!proceed()) {
                    return false;
                }
                Feeder.feed(run, columns, at, Math.min(columns.rows, at + SLICE), progress);
                rows += progress[0];
            }
            RunService.collect(run);
            return true;
        } finally {
            if (taken != null) {
                taken.release(); // the warm-up's own thread is the run's: it has stopped here
            }
        }
    }

    /** Waits while paused; false once stopped. */
    private boolean proceed() throws InterruptedException {
        synchronized (lock) {
            try {
                while (paused && !stopped) {
                    parked = true;
                    lock.notifyAll(); // a pause() waiting for this slice to end
                    lock.wait();
                }
            } finally {
                parked = false;
            }
            return !stopped;
        }
    }

    /**
     * Synthetic one-second klines: a seeded random walk with a bar in about half of the seconds,
     * like the sim exchange's (so windows both fire on schedule and skip empty periods).
     */
    static ColumnSet klines(int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] ts = new long[n];
        long[] closeTs = new long[n];
        double[] open = new double[n];
        double[] high = new double[n];
        double[] low = new double[n];
        double[] close = new double[n];
        double[] volume = new double[n];
        long t = 1_700_000_000_000L;
        double price = 30_000;
        for (int i = 0; i < n; i++) {
            t += 1_000L * (1 + (rnd.nextInt(4) == 0 ? rnd.nextInt(5) : 0));
            double o = price;
            price *= 1 + (rnd.nextDouble() - 0.5) * 4e-4;
            ts[i] = t;
            closeTs[i] = t + 999;
            open[i] = o;
            high[i] = Math.max(o, price) * (1 + rnd.nextDouble() * 1e-4);
            low[i] = Math.min(o, price) * (1 - rnd.nextDouble() * 1e-4);
            close[i] = price;
            volume[i] = rnd.nextDouble() * 2;
        }
        return ColumnSet.direct("kline", Map.of("ts", ts, "closeTs", closeTs),
                Map.of("open", open, "high", high, "low", low, "close", close, "volume", volume));
    }

    /** Synthetic ticks: a random walk, several ticks in some seconds and none in others. */
    static ColumnSet tickers(int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] ts = new long[n];
        double[] bid = new double[n];
        double[] bidSize = new double[n];
        double[] ask = new double[n];
        double[] askSize = new double[n];
        double[] last = new double[n];
        double[] volume = new double[n];
        long t = 1_700_000_000_000L;
        double price = 30_000;
        for (int i = 0; i < n; i++) {
            t += rnd.nextInt(1_500);
            price *= 1 + (rnd.nextDouble() - 0.5) * 2e-4;
            ts[i] = t;
            bid[i] = price - 0.5;
            ask[i] = price + 0.5;
            bidSize[i] = rnd.nextDouble();
            askSize[i] = rnd.nextDouble();
            last[i] = price;
            volume[i] = rnd.nextDouble();
        }
        return ColumnSet.direct("ticker", Map.of("ts", ts), Map.of("bid", bid, "bidSize", bidSize,
                "ask", ask, "askSize", askSize, "last", last, "volume", volume));
    }

    /** The shape: SMA crossover on one-second windows. */
    public static final class SmaCross extends AbstractKlineStrategy {
        @StrategyProperty(name = "fast", description = "fast SMA", defaultValue = "10")
        private int fast = 10;
        @StrategyProperty(name = "slow", description = "slow SMA", defaultValue = "40")
        private int slow = 40;

        public SmaCross() {}

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().sma("fast", fast).sma("slow", slow).diff("spread", "fast", "slow")
                    .window("spread", WindowTime.s1, new Listener(this, indicators, Listener.SIGN));
        }
    }

    /** EMA crossover, with a readiness check in its listener. */
    public static final class EmaCross extends AbstractKlineStrategy {
        @StrategyProperty(name = "fast", description = "fast EMA", defaultValue = "9")
        private int fast = 9;

        public EmaCross() {}

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().ema("fast", fast).ema("slow", 3 * fast)
                    .diff("spread", "fast", "slow").sma("calm", "spread", 5)
                    .window("spread", WindowTime.s1, new Listener(this, indicators, Listener.READY_SIGN));
        }
    }

    /** Price against its SMA, with info signals (the info path of the answer). */
    public static final class Levels extends AbstractKlineStrategy {
        @StrategyProperty(name = "length", description = "SMA length", defaultValue = "20")
        private int length = 20;

        public Levels() {}

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().sma("mean", length).diff("gap", "price", "mean")
                    .window("gap", WindowTime.s1, new Listener(this, indicators, Listener.INFO));
        }
    }

    /** The same crossover on tickers. */
    public static final class TickerCross extends AbstractTickerStrategy {
        @StrategyProperty(name = "slow", description = "slow SMA", defaultValue = "40")
        private int slow = 40;

        public TickerCross() {}

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().sma("fast", 10).ema("slow", slow).diff("spread", "fast", "slow")
                    .window("spread", WindowTime.s1, new Listener(this, indicators, Listener.SIGN));
        }
    }

    /** Ticker price against its EMA, with info signals. */
    public static final class TickerLevels extends AbstractTickerStrategy {
        public TickerLevels() {}

        @Override
        protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
            indicators.addPrice().ema("mean", 25).diff("gap", "price", "mean")
                    .window("gap", WindowTime.s1, new Listener(this, indicators, Listener.INFO));
        }
    }

    /**
     * Every warm-up listener, one class: the rule is a field. The user's listener class is then
     * the second receiver the listener call in the window code sees, which C2 still inlines
     * (bimorphic); with a class per rule that call became megamorphic, and a sweep, whose
     * vectors now share one loaded class, ran 12-16 % slower for it (docs/benchmarks.md).
     */
    static final class Listener extends AbstractWindowListener {
        /** Buys when the watched value turns positive, sells when it turns negative. */
        static final int SIGN = 0;
        /** The same with the opposite ties and a readiness check of {@code calm}. */
        static final int READY_SIGN = 1;
        /** Emits an info signal with a few fields on each sign change. */
        static final int INFO = 2;

        private final int rule;

        Listener(AbstractStrategy strategy, InstrumentGroupRTIndicator indicators, int rule) {
            super(strategy, indicators);
            this.rule = rule;
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (rule == SIGN) {
                if (prev <= 0 && actual > 0) {
                    emitBuy(indicators.getValue("price"));
                } else if (prev >= 0 && actual < 0) {
                    emitSell(indicators.getValue("price"));
                }
            } else if (rule == READY_SIGN) {
                if (!indicators.getReadOnlyExisting("calm").isReady()) {
                    return;
                }
                if (prev < 0 && actual >= 0) {
                    emitBuy(indicators.getValue("price"));
                } else if (prev > 0 && actual <= 0) {
                    emitSell(indicators.getValue("price"));
                }
            } else if ((prev <= 0 && actual > 0) || (prev >= 0 && actual < 0)) {
                emitSignal(createInfoSignal().set("gap", actual).set("up", actual > 0));
            }
        }
    }
}
