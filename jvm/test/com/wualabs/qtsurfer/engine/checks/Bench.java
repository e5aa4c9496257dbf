package com.wualabs.qtsurfer.engine.checks;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import com.wualabs.qtsurfer.engine.runtime.StrategyRun;

import java.util.Arrays;
import java.util.Map;
import java.util.Random;

/**
 * Throughput of an EMA(9) / EMA(21) crossover sampled by a 1 s window ({@link WindowChecks.EmaCross}) over
 * synthetic ticks fed through {@link StrategyRun#onTicker}. Usage: {@code Bench [ticks] [rounds]}
 * (defaults 10,000,000 and 5). Prints one line per round and a summary.
 */
public final class Bench {

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long[] ts = new long[n];
        double[] px = new double[n];
        Random r = new Random(11);
        long t = 1_700_000_000_000L;
        double p = 30_000;
        for (int i = 0; i < n; i++) {
            t += 1 + r.nextInt(200);
            p += r.nextGaussian() * 2;
            ts[i] = t;
            px[i] = p;
        }
        Instrument btc = new Instrument("BTC", "USDT");
        run("EMA(9)/EMA(21) crossover, 1 s window (fast path)", WindowChecks.EmaCross.class, btc, ts, px, rounds);
        run("same, update() overridden (Ticker record per event)", WindowChecks.EmaCrossOverride.class, btc, ts, px,
                rounds);
    }

    private static void run(String label, Class<?> cls, Instrument inst, long[] ts, double[] px, int rounds)
            throws Exception {
        int n = ts.length;
        double[] rates = new double[rounds];
        int signals = 0;
        for (int k = 0; k < rounds; k++) {
            StrategyRun run = StrategyHarness.start(cls, Map.of(), inst);
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                double last = px[i];
                run.onTicker(ts[i], last - 0.5, 1.0, last + 0.5, 1.0, last, 1.0);
            }
            long elapsed = System.nanoTime() - start;
            signals = run.signalCount();
            rates[k] = n / (elapsed / 1e9);
            System.out.printf("  round %d: %,d ticks in %.3f s = %.1f M ticks/s (%d signals)%n", k + 1, n,
                    elapsed / 1e9, rates[k] / 1e6, signals);
        }
        double[] sorted = rates.clone();
        Arrays.sort(sorted);
        System.out.printf("%s: best %.1f M ticks/s, median %.1f M ticks/s over %,d ticks (%d signals, %d windows)%n",
                label, sorted[rounds - 1] / 1e6, sorted[rounds / 2] / 1e6, n, signals,
                (ts[n - 1] / 1000) - (ts[0] / 1000));
    }
}
