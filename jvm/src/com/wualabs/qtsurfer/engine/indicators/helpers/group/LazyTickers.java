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

    /** As {@link LazyKlines#run}, over ticker columns; each row begins an event at its time. */
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
        int done = f.done;
        try {
            for (; i < end; i++) {
                long t = ts[i];
                StrategyInternals.beginEvent(s, instrument, t);
                f.tickerLast(last[i]);
                // WindowSet.beforeEvent
                if (t >= nextDue) {
                    boolean arm = !armed;
                    if (armed && t >= stop) {
                        LazyKlines.fire(g, w, start, stop, nextDue, LazyKlines.valueAt(xs, ys, op, done));
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
                if (detail) {
                    f.tickerDetail(bid[i], bidSize[i], ask[i], askSize[i], last[i], volume[i]);
                }
                int e = f.index; // InstrumentGroupRTIndicator.stepAll of a LAZY group
                if (e >= lazyEnd) {
                    LazyKlines.keep(w, ws, armed, start, stop, nextDue);
                    g.stepAll();
                    return i + 1;
                }
                done = e + 1;
                f.done = done;
            }
        } catch (Throwable thrown) {
            at[0] = i;
            throw thrown;
        }
        LazyKlines.keep(w, ws, armed, start, stop, nextDue);
        return end;
    }
}
