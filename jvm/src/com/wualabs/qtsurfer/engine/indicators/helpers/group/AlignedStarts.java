package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import java.util.Map;
import java.util.WeakHashMap;

/**
 * Whether every time of a column of window-assigning times (a kline's open, a ticker's time) is a
 * multiple of a window's period, so that each row's window starts at the row's own time.
 *
 * <p>Why: {@link LazyRows} arms the window again for every row when the window closes with every
 * bar (a one-second window over one-second bars, the usual sweep), and arming is {@link
 * Window#startOf}, a 64-bit division: about a tenth of the strategy thread on the sweep grid. Over
 * aligned times the division's answer is the time itself. The check reads the column once, the
 * first time a (column, period) pair is asked for; a sweep's vectors then share the answer, kept
 * while the column array lives (the column cache keeps one array for all of a dataset's runs).
 */
final class AlignedStarts {

    private static final Map<long[], Map<Long, Boolean>> KNOWN = new WeakHashMap<>();

    private AlignedStarts() {
    }

    /** True when every value of {@code times} is a multiple of {@code period} ({@code period > 0}). */
    static synchronized boolean all(long[] times, long period) {
        Map<Long, Boolean> byPeriod = KNOWN.computeIfAbsent(times, t -> new java.util.HashMap<>(2));
        Boolean known = byPeriod.get(period);
        if (known == null) {
            known = check(times, period);
            byPeriod.put(period, known);
        }
        return known;
    }

    private static boolean check(long[] times, long period) {
        for (long t : times) {
            if (Window.startOf(t, period) != t) { // the very division it spares LazyRows
                return false;
            }
        }
        return true;
    }
}
