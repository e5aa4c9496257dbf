package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import java.util.Arrays;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The rows of a kline column pair that are not each exactly one window of a period (a bar whose open and
 * close are not one window's bounds), so that {@link LazyRows}' own-window loop knows at its start how far
 * it may go, instead of reading both times of every row to find out.
 *
 * <p>Why: on the sweep grid (one-second windows over one-second bars) every row is its own window, and the
 * loop compared both times of every row and left on the first that was not. With its end known, the loop
 * tests only the row count against a bound fixed before it starts (0.82-0.87 of the engine's CPU on the
 * sweep grid). Found once per (columns, period) pair, the first time it is asked for; a sweep's vectors
 * share the answer, kept while the column arrays live (the column cache keeps one array for all of a
 * dataset's runs), as {@link AlignedStarts} keeps its own.
 */
final class OwnWindowRows {

    /** At most this many breaks are kept per (columns, period) pair; rows past the last are scanned when asked. */
    private static final int KEPT = 1024;

    /** The rows that break a stretch, by open-time column, then period; each with the close column it was found for. */
    private static final Map<long[], Map<Long, Known>> KNOWN = new WeakHashMap<>();

    /** {@code breaks} ascending; {@code complete} when no row after the last of them breaks. */
    private record Known(long[] closes, int[] breaks, boolean complete) {
    }

    private OwnWindowRows() {
    }

    /** Whether a bar from {@code open} to {@code close} (inclusive) is exactly one window of {@code period}. */
    static boolean ownWindow(long open, long close, long period) {
        return close != Long.MAX_VALUE && close + 1 == open + period;
    }

    /**
     * The first row at or after {@code i} that is not its own window of {@code period} (or the columns' shorter
     * length when every row up to it is one).
     */
    static int next(long[] opens, long[] closes, long period, int i) {
        Known known = known(opens, closes, period);
        int[] breaks = known.breaks;
        int at = Arrays.binarySearch(breaks, i);
        if (at < 0) {
            at = -at - 1;
        }
        if (at < breaks.length) {
            return breaks[at];
        }
        return known.complete ? Math.min(opens.length, closes.length) : scan(opens, closes, period, i);
    }

    private static synchronized Known known(long[] opens, long[] closes, long period) {
        Map<Long, Known> byPeriod = KNOWN.computeIfAbsent(opens, t -> new java.util.HashMap<>(2));
        Known known = byPeriod.get(period);
        if (known == null || known.closes != closes) {
            known = find(opens, closes, period);
            byPeriod.put(period, known);
        }
        return known;
    }

    private static Known find(long[] opens, long[] closes, long period) {
        int n = Math.min(opens.length, closes.length);
        int[] found = new int[8];
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (!ownWindow(opens[i], closes[i], period)) {
                if (count == KEPT) {
                    return new Known(closes, Arrays.copyOf(found, count), false);
                }
                if (count == found.length) {
                    found = Arrays.copyOf(found, count * 2);
                }
                found[count++] = i;
            }
        }
        return new Known(closes, Arrays.copyOf(found, count), true);
    }

    private static int scan(long[] opens, long[] closes, long period, int i) {
        int n = Math.min(opens.length, closes.length);
        while (i < n && ownWindow(opens[i], closes[i], period)) {
            i++;
        }
        return i;
    }
}
