package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;

/**
 * Kline rows for a group that steps no node (all LAZY, {@code InstrumentGroupRTIndicator#useSeries}) and
 * has one window: what {@link GroupDriver#kline(InstrumentGroupRTIndicator, long, long, double[], double[],
 * double[], double[], double[], int)} does row by row, with the window's state and the series of the value
 * it watches held in locals.
 *
 * <p>Why: in such a group a row is only the window's bookkeeping and its listener, and the general path
 * reads all of it through objects the listener could have changed (node, indicator, series, frame, window,
 * each a load after the one before): about 10 ns of a 15-19 ns row on the sweep grid, against 2.7 ns for
 * a loop written for that one strategy (docs/benchmarks.md). Here those are read once. Before each call of
 * the listener the window's fields hold what the general path would hold; after it, anything the listener
 * did to the group's shape (a node or window added, an indicator reached, an event fed by hand: the group
 * then steps again) ends this loop, after the rest of the row is done as the general path does it.
 */
final class LazyKlines {

    private LazyKlines() {
    }

    /** True when {@link #run} (and {@link LazyTickers#run}) applies to {@code g}. */
    static boolean applies(InstrumentGroupRTIndicator g) {
        return g.lazy && g.windows.count() == 1 && g.windows.first().watched.isLazy();
    }

    /** After a listener returned: whether the group still steps no node and has its one window. */
    static boolean still(InstrumentGroupRTIndicator g) {
        return g.lazy && g.windows.count() == 1;
    }

    /**
     * Rows {@code i .. end-1}, each begun for {@code s} (its event time, the close time) as the general path
     * begins it. Returns the first row not taken: {@code end}, the row after the one during which the
     * group left this case, or the first row past its series. {@code at[0]} holds the row in progress when the listener throws.
     *
     * <p>Between two calls of the listener nothing can observe the row's event time, the frame or the
     * count of events (no node steps), so a row whose window does not close only counts itself: those are
     * written for the row at hand just before the listener is called, and when the loop ends.
     */
    static int run(AbstractStrategy s, Instrument instrument, InstrumentGroupRTIndicator g, long[] openTs,
                   long[] closeTs, double[] open, double[] high, double[] low, double[] close, double[] volume,
                   int i, int end, int[] at) {
        EventFrame f = g.frame;
        WindowSet ws = g.windows;
        Window w = ws.first();
        Node watched = w.watched;
        Ops.Binary op = watched.lazyOperation(); // null: the watched node replays a series itself
        double[] xs = op == null ? watched.lazySeries() : op.a.lazySeries();
        double[] ys = op == null ? null : op.b.lazySeries();
        long period = w.period;
        int lazyEnd = g.lazyEnd;
        boolean detail = g.klineDetail;
        long nextDue = ws.nextDue;
        boolean armed = w.armed;
        long start = w.start;
        long stop = w.end;
        int e = f.index; // the row's event index, as the general path would have it in the frame
        int first = i;
        try {
            for (; i < end; i++) {
                if (armed) { // rows that neither close the window nor end it only count themselves
                    int room = lazyEnd - 1 - e;
                    int limit = end - i <= room ? end : i + room;
                    int j = i;
                    while (j < limit && openTs[j] < stop && closeTs[j] < stop - 1) {
                        j++;
                    }
                    e += j - i;
                    i = j;
                    if (i == end) {
                        break;
                    }
                }
                if (e + 1 >= lazyEnd) {
                    break; // past the series: the group steps from this row on, the general path's
                }
                e++;
                long closeAt = closeTs[i];
                long t = openTs[i];
                // WindowSet.beforeEvent
                if (t >= nextDue) {
                    boolean arm = !armed;
                    if (armed && t >= stop) {
                        row(s, instrument, f, e, e, closeAt, close[i]); // the row begun, not stepped
                        fire(g, w, start, stop, nextDue, valueAt(xs, ys, op, e));
                        if (!still(g)) {
                            // finish the row as the general path does (WindowSet.beforeEvent, GroupDriver.kline)
                            w.arm(t);
                            ws.nextDue = ws.count() != 1 ? Long.MIN_VALUE : w.end;
                            if (g.klineDetail) {
                                f.klineDetail(open[i], high[i], low[i], close[i], volume[i]);
                            }
                            g.stepAll();
                            ws.afterBar(closeAt == Long.MAX_VALUE ? closeAt : closeAt + 1);
                            return i + 1;
                        }
                        arm = true;
                    }
                    if (arm) { // Window.arm
                        start = Math.floorDiv(t, period) * period;
                        stop = start + period;
                        armed = true;
                    }
                    nextDue = stop;
                }
                // (InstrumentGroupRTIndicator.stepAll of a LAZY group: this row counted, e + 1 events)
                // WindowSet.afterBar
                long tEnd = closeAt == Long.MAX_VALUE ? closeAt : closeAt + 1;
                if (tEnd >= nextDue) {
                    if (armed && tEnd >= stop) {
                        row(s, instrument, f, e, e + 1, closeAt, close[i]); // the row stepped
                        if (detail) {
                            f.klineDetail(open[i], high[i], low[i], close[i], volume[i]);
                        }
                        fire(g, w, start, stop, nextDue, valueAt(xs, ys, op, e + 1));
                        armed = false;
                        if (!still(g)) {
                            w.armed = false;
                            ws.nextDue = Long.MIN_VALUE;
                            return i + 1;
                        }
                    }
                    nextDue = armed ? stop : Long.MIN_VALUE;
                }
            }
        } catch (Throwable thrown) {
            at[0] = i;
            throw thrown;
        }
        if (i > first) { // the last row taken, as the general path leaves it
            int last = i - 1;
            row(s, instrument, f, e, e + 1, closeTs[last], close[last]);
            if (detail) {
                f.klineDetail(open[last], high[last], low[last], close[last], volume[last]);
            }
        }
        keep(w, ws, armed, start, stop, nextDue);
        return i;
    }

    /**
     * What the general path has written when row {@code e} (an event index) is begun: the strategy's event at
     * {@code time}, the frame's close, and {@code done} events stepped ({@code e} before its step, {@code e + 1}
     * after).
     */
    private static void row(AbstractStrategy s, Instrument instrument, EventFrame f, int e, int done, long time,
                            double close) {
        StrategyInternals.beginEvent(s, instrument, time);
        f.klineAt(e, close);
        f.done = done;
    }

    /**
     * The watched value after {@code done} events: its series' value ({@code op} null), or the operation
     * over its operands' ({@code Node#now} of a LAZY node, from arrays held in locals).
     */
    static double valueAt(double[] xs, double[] ys, Ops.Binary op, int done) {
        if (done <= 0) {
            return Double.NaN;
        }
        return op == null ? xs[done - 1] : op.of(xs[done - 1], ys[done - 1]);
    }

    /** Writes the window's state back where the general path keeps it. */
    static void keep(Window w, WindowSet ws, boolean armed, long start, long stop, long nextDue) {
        w.armed = armed;
        w.start = start;
        w.end = stop;
        ws.nextDue = nextDue;
    }

    /** {@code WindowSet.fire}, with the window's state written back first (the listener may reach it). */
    static void fire(InstrumentGroupRTIndicator g, Window w, long start, long stop, long nextDue,
                             double actual) {
        keep(w, g.windows, true, start, stop, nextDue);
        double prev = w.lastClose;
        w.lastClose = actual;
        w.listener.dispatchWindowClose(g.store(), start, stop, prev, actual);
    }
}
