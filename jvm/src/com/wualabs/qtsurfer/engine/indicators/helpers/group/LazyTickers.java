package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;

/**
 * Ticker rows for a group that steps no node and has one window: {@link LazyKlines} for tickers, what
 * {@link GroupDriver#ticker(InstrumentGroupRTIndicator, long, double[], double[], double[], double[],
 * double[], double[], int)} does row by row. A ticker is an instant: its window closes only before a later
 * row, never after one.
 */
final class LazyTickers {

    private LazyTickers() {
    }

    /**
     * As {@link LazyKlines#run}, over ticker columns; each row begins an event at its time, written (with
     * the frame) only for a row whose window closes, and for the last row.
     */
    static int run(AbstractStrategy s, Instrument instrument, InstrumentGroupRTIndicator g, long[] ts,
                   double[] bid, double[] bidSize, double[] ask, double[] askSize, double[] last, double[] volume,
                   int i, int end, int[] at) {
        EventFrame f = g.frame;
        WindowSet ws = g.windows;
        Window w = ws.first();
        Node watched = w.watched;
        Ops.Binary op = watched.lazyOperation();
        double[] xs = op == null ? watched.lazySeries() : op.a.lazySeries();
        double[] ys = op == null ? null : op.b.lazySeries();
        long period = w.period;
        int lazyEnd = g.lazyEnd;
        boolean detail = g.tickerDetail;
        long nextDue = ws.nextDue;
        boolean armed = w.armed;
        long start = w.start;
        long stop = w.end;
        int e = f.index; // the row's event index, as the general path would have it in the frame
        int first = i;
        try {
            for (; i < end; i++) {
                if (armed) { // rows before the window's end only count themselves
                    int room = lazyEnd - 1 - e;
                    int limit = end - i <= room ? end : i + room;
                    int j = i;
                    while (j < limit && ts[j] < stop) {
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
                long t = ts[i];
                // WindowSet.beforeEvent (a ticker closes no window after it)
                if (t >= nextDue) {
                    boolean arm = !armed;
                    if (armed && t >= stop) {
                        row(s, instrument, f, e, e, t, last[i]); // the row begun, not stepped
                        LazyKlines.fire(g, w, start, stop, nextDue, LazyKlines.valueAt(xs, ys, op, e));
                        if (!LazyKlines.still(g)) {
                            // finish the row as the general path does (WindowSet.beforeEvent, GroupDriver.ticker)
                            w.arm(t);
                            ws.nextDue = ws.count() != 1 ? Long.MIN_VALUE : w.end;
                            if (g.tickerDetail) {
                                f.tickerDetail(bid[i], bidSize[i], ask[i], askSize[i], last[i], volume[i]);
                            }
                            g.stepAll();
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
            }
        } catch (Throwable thrown) {
            at[0] = i;
            throw thrown;
        }
        if (i > first) { // the last row taken, as the general path leaves it
            int lastRow = i - 1;
            row(s, instrument, f, e, e + 1, ts[lastRow], last[lastRow]);
            if (detail) {
                f.tickerDetail(bid[lastRow], bidSize[lastRow], ask[lastRow], askSize[lastRow], last[lastRow],
                        volume[lastRow]);
            }
        }
        LazyKlines.keep(w, ws, armed, start, stop, nextDue);
        return i;
    }

    /** {@code LazyKlines.row} for a ticker: its time, its last price, {@code done} events stepped. */
    private static void row(AbstractStrategy s, Instrument instrument, EventFrame f, int e, int done, long time,
                            double last) {
        StrategyInternals.beginEvent(s, instrument, time);
        f.tickerAt(e, last);
        f.done = done;
    }
}
