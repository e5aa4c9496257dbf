package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import java.nio.DoubleBuffer;
import java.nio.LongBuffer;

/**
 * The event loops: one tight loop per data kind over the mapped columns, calling the harness
 * once per row. {@code progress[0]} always ends up holding the number of rows delivered, even
 * when the strategy throws part-way.
 *
 * <p>Tickers and klines are read from the heap copy of the columns when the host holds one
 * ({@link ColumnCache}, {@link ColumnSet#heap}): a sweep's vectors share it, and an array read in
 * a counted loop is a plain load where a buffer read also checks the index, the memory scope and
 * the address (about 10 % of a sweep vector's engine time). Without a copy (data above the
 * cache's budget, or funding) they read the mapped buffers row by row. (Copying a chunk at a time
 * into heap arrays for every run cost more than it saved: about 5 ns a bar.) Klines and tickers
 * from the heap copy go to the strategy run a column set at a time ({@code StrategyRun.onKlines},
 * {@code onTickers}), so that on the fast path only the columns its indicators read are read (the
 * close alone for a sweep's SMA crossover).
 */
final class Feeder {
    private Feeder() {}

    static void feed(StrategyRun run, ColumnSet c, int start, int end, long[] progress) {
        switch (c.kind) {
            case "ticker" -> tickers(run, c, start, end, progress);
            case "kline" -> klines(run, c, start, end, progress);
            case "funding" -> funding(run, c, start, end, progress);
            default -> throw new IllegalArgumentException("unknown data kind " + c.kind);
        }
    }

    private static void tickers(StrategyRun run, ColumnSet c, int start, int end,
            long[] progress) {
        if (c.heap != null) {
            Object[] h = c.heap; // LAYOUTS order: ts, bid, bidSize, ask, askSize, last, volume
            tickers(run, (long[]) h[0], (double[]) h[1], (double[]) h[2], (double[]) h[3],
                    (double[]) h[4], (double[]) h[5], (double[]) h[6], start, end, progress);
            return;
        }
        LongBuffer ts = c.longs("ts");
        DoubleBuffer bid = c.doubles("bid");
        DoubleBuffer bidSize = c.doubles("bidSize");
        DoubleBuffer ask = c.doubles("ask");
        DoubleBuffer askSize = c.doubles("askSize");
        DoubleBuffer last = c.doubles("last");
        DoubleBuffer volume = c.doubles("volume");
        int i = start;
        try {
            for (; i < end; i++) {
                run.onTicker(ts.get(i), bid.get(i), bidSize.get(i), ask.get(i), askSize.get(i),
                        last.get(i), volume.get(i));
            }
        } finally {
            progress[0] = i - start;
        }
    }

    private static void tickers(StrategyRun run, long[] ts, double[] bid, double[] bidSize,
            double[] ask, double[] askSize, double[] last, double[] volume, int start, int end,
            long[] progress) {
        run.onTickers(ts, bid, bidSize, ask, askSize, last, volume, start, end, progress);
    }

    private static void klines(StrategyRun run, ColumnSet c, int start, int end,
            long[] progress) {
        if (c.heap != null) {
            Object[] h = c.heap; // LAYOUTS order: ts, closeTs, open, high, low, close, volume
            klines(run, (long[]) h[0], (long[]) h[1], (double[]) h[2], (double[]) h[3],
                    (double[]) h[4], (double[]) h[5], (double[]) h[6], start, end, progress);
            return;
        }
        LongBuffer ts = c.longs("ts");
        LongBuffer closeTs = c.longs("closeTs");
        DoubleBuffer open = c.doubles("open");
        DoubleBuffer high = c.doubles("high");
        DoubleBuffer low = c.doubles("low");
        DoubleBuffer close = c.doubles("close");
        DoubleBuffer volume = c.doubles("volume");
        int i = start;
        try {
            for (; i < end; i++) {
                run.onKline(ts.get(i), closeTs.get(i), open.get(i), high.get(i), low.get(i),
                        close.get(i), volume.get(i));
            }
        } finally {
            progress[0] = i - start;
        }
    }

    private static void klines(StrategyRun run, long[] ts, long[] closeTs, double[] open,
            double[] high, double[] low, double[] close, double[] volume, int start, int end,
            long[] progress) {
        run.onKlines(ts, closeTs, open, high, low, close, volume, start, end, progress);
    }

    private static void funding(StrategyRun run, ColumnSet c, int start, int end,
            long[] progress) {
        LongBuffer ts = c.longs("ts");
        DoubleBuffer rate = c.doubles("rate");
        DoubleBuffer mark = c.doubles("markPrice");
        int i = start;
        try {
            for (; i < end; i++) {
                run.onFunding(ts.get(i), rate.get(i), mark.get(i));
            }
        } finally {
            progress[0] = i - start;
        }
    }
}
