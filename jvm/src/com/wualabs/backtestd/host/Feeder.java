package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import java.nio.DoubleBuffer;
import java.nio.LongBuffer;

/**
 * The event loops: one tight loop per data kind over the mapped columns, calling the harness
 * once per row. {@code progress[0]} always ends up holding the number of rows delivered, even
 * when the strategy throws part-way.
 *
 * <p>Every loop reads the mapped buffers row by row. Klines were once copied a chunk at a time
 * into heap arrays first; on JDK 17 the absolute buffer reads compile to plain loads, and the
 * copy cost about 5 ns a bar (a sixth of a sweep vector's time over a million bars), so it went.
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
