package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import java.nio.DoubleBuffer;
import java.nio.LongBuffer;

/**
 * The event loops: one tight loop per data kind over the mapped columns, calling the harness
 * once per row. {@code progress[0]} always ends up holding the number of rows delivered, even
 * when the strategy throws part-way.
 */
final class Feeder {
    /**
     * Rows copied at a time from the mapped columns into small heap arrays (bulk copies): the loop
     * then reads plain arrays instead of bounds- and scope-checked buffer reads, about 56 KiB of
     * scratch for klines, whatever the data's length.
     */
    static final int CHUNK = 1024;

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

    private static void klines(StrategyRun run, ColumnSet c, int start, int end,
            long[] progress) {
        LongBuffer ts = c.longs("ts");
        LongBuffer closeTs = c.longs("closeTs");
        DoubleBuffer open = c.doubles("open");
        DoubleBuffer high = c.doubles("high");
        DoubleBuffer low = c.doubles("low");
        DoubleBuffer close = c.doubles("close");
        DoubleBuffer volume = c.doubles("volume");
        int n = Math.min(CHUNK, Math.max(0, end - start));
        long[] t = new long[n];
        long[] ct = new long[n];
        double[] o = new double[n];
        double[] h = new double[n];
        double[] l = new double[n];
        double[] cl = new double[n];
        double[] v = new double[n];
        int i = start;
        try {
            while (i < end) {
                int len = Math.min(n, end - i);
                ts.get(i, t, 0, len);
                closeTs.get(i, ct, 0, len);
                open.get(i, o, 0, len);
                high.get(i, h, 0, len);
                low.get(i, l, 0, len);
                close.get(i, cl, 0, len);
                volume.get(i, v, 0, len);
                for (int k = 0; k < len; k++, i++) {
                    run.onKline(t[k], ct[k], o[k], h[k], l[k], cl[k], v[k]);
                }
            }
        } finally {
            progress[0] = i - start;
        }
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
