package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.internal.RowClock;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;

/**
 * Rows of columns (klines or tickers) for a group that steps no node (all LAZY,
 * {@code InstrumentGroupRTIndicator#useSeries}) and has one window: what {@link GroupDriver}'s column
 * methods do row by row, with the window's state and the series of the value it watches held in locals.
 *
 * <p>Why: in such a group a row is only the window's bookkeeping and its listener, and the general path
 * reads all of it through objects the listener could have changed (node, indicator, series, frame, window,
 * each a load after the one before): about 10 ns of a 15-19 ns row on the sweep grid, against 2.7 ns for
 * a loop written for that one strategy (docs/benchmarks.md). Here those are read once. Before each call of
 * the listener the window's fields, the frame and the strategy's event hold what the general path would
 * hold; after it, anything the listener did to the group's shape (a node or window added, an indicator
 * reached, an event fed by hand: the group then steps again) ends this loop, after the rest of the row is
 * done as the general path does it. Between two calls nothing can observe a row (no node steps), so a row
 * whose window does not close only counts itself, and the rows before the window's end are passed in a
 * scan of their times.
 */
final class LazyRows {

    private LazyRows() {
    }

    /** One data kind's columns, as the general path reads a row of them. */
    abstract static class Source {
        /** The time that assigns row {@code i} to a window (a kline's open, a ticker's time). */
        abstract long start(int i);

        /** The column of those times ({@link AlignedStarts}). */
        abstract long[] starts();

        /** Row {@code i}'s event time (a kline's close, a ticker's time). */
        abstract long time(int i);

        /** True when a row may close a window after it (a kline, whose close time reaches its end). */
        abstract boolean bars();

        /** The frame as the row's first part leaves it at event {@code e} ({@code klineClose}, {@code tickerLast}). */
        abstract void begin(EventFrame f, int i, int e);

        /** Whether the general path fills the rest of a row for {@code g} (a node reads it). */
        abstract boolean detailed(InstrumentGroupRTIndicator g);

        /** The rest of the row ({@code klineDetail}, {@code tickerDetail}). */
        abstract void detail(EventFrame f, int i);
    }

    /** Kline columns ({@link GroupDriver#kline(InstrumentGroupRTIndicator, long, long, double[], double[], double[], double[], double[], int)}). */
    static final class Klines extends Source {
        private final long[] openTs;
        private final long[] closeTs;
        private final double[] open;
        private final double[] high;
        private final double[] low;
        private final double[] close;
        private final double[] volume;

        Klines(long[] openTs, long[] closeTs, double[] open, double[] high, double[] low, double[] close,
               double[] volume) {
            this.openTs = openTs;
            this.closeTs = closeTs;
            this.open = open;
            this.high = high;
            this.low = low;
            this.close = close;
            this.volume = volume;
        }

        @Override
        long start(int i) {
            return openTs[i];
        }

        @Override
        long[] starts() {
            return openTs;
        }

        @Override
        long time(int i) {
            return closeTs[i];
        }

        @Override
        boolean bars() {
            return true;
        }

        @Override
        void begin(EventFrame f, int i, int e) {
            f.klineAt(e, close[i]);
        }

        @Override
        boolean detailed(InstrumentGroupRTIndicator g) {
            return g.klineDetail;
        }

        @Override
        void detail(EventFrame f, int i) {
            f.klineDetail(open[i], high[i], low[i], close[i], volume[i]);
        }
    }

    /** Ticker columns ({@link GroupDriver#ticker(InstrumentGroupRTIndicator, long, double[], double[], double[], double[], double[], double[], int)}). */
    static final class Tickers extends Source {
        private final long[] ts;
        private final double[] bid;
        private final double[] bidSize;
        private final double[] ask;
        private final double[] askSize;
        private final double[] last;
        private final double[] volume;

        Tickers(long[] ts, double[] bid, double[] bidSize, double[] ask, double[] askSize, double[] last,
                double[] volume) {
            this.ts = ts;
            this.bid = bid;
            this.bidSize = bidSize;
            this.ask = ask;
            this.askSize = askSize;
            this.last = last;
            this.volume = volume;
        }

        @Override
        long start(int i) {
            return ts[i];
        }

        @Override
        long[] starts() {
            return ts;
        }

        @Override
        long time(int i) {
            return ts[i];
        }

        @Override
        boolean bars() {
            return false;
        }

        @Override
        void begin(EventFrame f, int i, int e) {
            f.tickerAt(e, last[i]);
        }

        @Override
        boolean detailed(InstrumentGroupRTIndicator g) {
            return g.tickerDetail;
        }

        @Override
        void detail(EventFrame f, int i) {
            f.tickerDetail(bid[i], bidSize[i], ask[i], askSize[i], last[i], volume[i]);
        }
    }

    /** True when {@link #run} applies to {@code g}. */
    static boolean applies(InstrumentGroupRTIndicator g) {
        return g.lazy && g.windows.count() == 1 && g.windows.first().watched.isLazy();
    }

    /** After a listener returned: whether the group still steps no node and has its one window. */
    private static boolean still(InstrumentGroupRTIndicator g) {
        return g.lazy && g.windows.count() == 1;
    }

    /**
     * Rows {@code i .. end-1} of {@code rows}, each begun for {@code s} at its event time as the general
     * path begins it. Returns the first row not taken: {@code end}, the row after the one during which the
     * group left this case, or the first row past its series. {@code at[0]} holds the row in progress when
     * the listener throws.
     */
    static int run(AbstractStrategy s, Instrument instrument, InstrumentGroupRTIndicator g, Source rows, int i,
                   int end, int[] at) {
        EventFrame f = g.frame;
        WindowSet ws = g.windows;
        Window w = ws.first();
        Node watched = w.watched;
        Ops.Binary op = watched.lazyOperation(); // null: the watched node replays a series itself
        double[] xs = op == null ? watched.lazySeries() : op.a.lazySeries();
        double[] ys = op == null ? null : op.b.lazySeries();
        long period = w.period;
        boolean aligned = AlignedStarts.all(rows.starts(), period); // each row's window starts at it
        int lazyEnd = g.lazyEnd;
        boolean detail = rows.detailed(g);
        boolean bars = rows.bars();
        long nextDue = ws.nextDue;
        boolean armed = w.armed;
        long start = w.start;
        long stop = w.end;
        int e = f.index; // the row's event index, as the general path would have it in the frame
        int first = i;
        if (!armed && nextDue == Long.MIN_VALUE && aligned && bars && !detail && rows instanceof Klines) {
            i = ownWindows(s, instrument, g, (Klines) rows, w, op, xs, ys, period, i, end, lazyEnd, at);
            if (i == end || !still(g)) {
                return i;
            }
            e = f.index;
            start = w.start;
            stop = w.end;
        }
        try {
            for (; i < end; i++) {
                if (armed) { // rows that neither reach the window's end nor close it only count themselves
                    int room = lazyEnd - 1 - e;
                    int limit = end - i <= room ? end : i + room;
                    int j = i;
                    while (j < limit && rows.start(j) < stop && (!bars || rows.time(j) < stop - 1)) {
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
                long time = rows.time(i);
                long t = rows.start(i);
                // WindowSet.beforeEvent
                if (t >= nextDue) {
                    boolean arm = !armed;
                    if (armed && t >= stop) {
                        row(s, instrument, f, rows, i, e, e, time); // the row begun, not stepped
                        fire(g, w, start, stop, nextDue, Node.valueAt(xs, ys, op, e));
                        if (!still(g)) {
                            // finish the row as the general path does (WindowSet.beforeEvent, GroupDriver)
                            w.arm(t);
                            ws.nextDue = ws.count() != 1 ? Long.MIN_VALUE : w.end;
                            if (rows.detailed(g)) {
                                rows.detail(f, i);
                            }
                            g.stepAll();
                            if (bars) {
                                ws.afterBar(WindowSet.barEnd(time));
                            }
                            return i + 1;
                        }
                        arm = true;
                    }
                    if (arm) { // Window.arm
                        start = aligned ? t : Window.startOf(t, period);
                        stop = start + period;
                        armed = true;
                    }
                    nextDue = stop;
                }
                // (InstrumentGroupRTIndicator.stepAll of a LAZY group: this row counted, e + 1 events)
                if (!bars) {
                    continue;
                }
                // WindowSet.afterBar
                long tEnd = WindowSet.barEnd(time);
                if (tEnd >= nextDue) {
                    if (armed && tEnd >= stop) {
                        row(s, instrument, f, rows, i, e, e + 1, time); // the row stepped
                        if (detail) {
                            rows.detail(f, i);
                        }
                        fire(g, w, start, stop, nextDue, Node.valueAt(xs, ys, op, e + 1));
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
            row(s, instrument, f, rows, last, e, e + 1, rows.time(last));
            if (detail) {
                rows.detail(f, last);
            }
        }
        keep(w, ws, armed, start, stop, nextDue);
        return i;
    }

    /**
     * Rows {@code i ..} while each bar is its own window (the window opens at the bar's open and closes at its
     * close, so {@link #run} would arm it and fire it after the bar): as {@link #run} takes them, with the
     * event's time and the frame's close left in a {@link RowClock} that the strategy and the frame read when
     * asked, instead of written before every call of the listener (about a quarter of the strategy thread on
     * the sweep grid, where that listener is called at every row). Returns the first row not taken: {@code end},
     * the first row that is not its own window or is past the series, or the row after the one during which
     * the group left this case (an event fed to it by hand among others: the frame then stops reading the
     * clock). An event begun by hand for another instrument holds the strategy's event for the rest of its
     * row ({@link RowClock#begunByHand}), as the general path's would until the next row begins. Whatever it
     * returns, the strategy's event and the frame hold what {@link #run} would have left.
     */
    private static int ownWindows(AbstractStrategy s, Instrument instrument, InstrumentGroupRTIndicator g,
                                  Klines rows, Window w, Ops.Binary op, double[] xs, double[] ys, long period,
                                  int i, int end, int lazyEnd, int[] at) {
        long[] starts = rows.openTs;
        long[] times = rows.closeTs;
        double[] closes = rows.close;
        EventFrame f = g.frame;
        WindowSet ws = g.windows;
        int e = f.index;
        if (i >= end || !OwnWindowRows.ownWindow(starts[i], times[i], period) || e + 1 >= lazyEnd) {
            return i;
        }
        RowClock clock = new RowClock(times, closes, instrument);
        clock.row = i;
        StrategyInternals.beginEvent(s, instrument, times[i]);
        f.klineAt(e + 1, closes[i]); // the frame's kline fields, as the general path's first row sets them
        StrategyInternals.useRowClock(s, clock);
        f.useRowClock(clock);
        OwnWindowClock windowClock = new OwnWindowClock(clock, w, ws); // run() entered with w unarmed
        AbstractWindowListener listener = w.listener;
        // the rows taken: up to the first that is not its own window, or past the series (e + 1 >= lazyEnd)
        int stop = (int) Math.min(Math.min(end, OwnWindowRows.next(starts, times, period, i)),
                (long) i + (lazyEnd - 1 - e));
        // Each row's time and close read as the loop passes it, though only an emit (the time) or a read
        // of the close needs them: streamed, they are in the cache when one does; read only then, about
        // one row in fifty on the sweep grid, each read missed it (an emit or a getValue("price") cost
        // 70-90 ns). Their bits go to the clock at the end, so that the JIT keeps the reads.
        long passed = 0;
        try {
            for (; i < stop; i++) {
                e++;
                clock.row = i;
                passed ^= times[i] ^ Double.doubleToRawLongBits(closes[i]);
                f.index = e;
                f.done = e + 1;
                double actual = Node.valueAt(xs, ys, op, e + 1);
                double prev = w.lastClose; // fire(), as the general path calls it after this row's bar, with
                w.lastClose = actual; // the window's state and the listener's bounds in windowClock
                listener.onChange(g.store(), prev, actual);
                if (!windowClock.live || !still(g)) {
                    i++;
                    break;
                }
            }
            windowClock.end();
            clock.passed = passed;
        } catch (Throwable thrown) {
            at[0] = i;
            windowClock.settle(); // the call threw: the window armed on its row, as the general path leaves it
            throw thrown;
        } finally {
            // run() returns at once when the group left this case, as the general path does after that row's
            // listener: an event begun by hand during it stays; otherwise the general path wrote the row's event
            StrategyInternals.endRowClock(s, clock, !still(g));
            f.endRowClock(clock);
        }
        return i;
    }

    /**
     * What the general path has written when row {@code i}, event {@code e}, is begun: the strategy's event
     * at {@code time}, the row's first part in the frame, and {@code done} events stepped ({@code e} before
     * its step, {@code e + 1} after).
     */
    private static void row(AbstractStrategy s, Instrument instrument, EventFrame f, Source rows, int i, int e,
                            int done, long time) {
        StrategyInternals.beginEvent(s, instrument, time);
        rows.begin(f, i, e);
        f.done = done;
    }

    /** Writes the window's state back where the general path keeps it. */
    private static void keep(Window w, WindowSet ws, boolean armed, long start, long stop, long nextDue) {
        w.armed = armed;
        w.start = start;
        w.end = stop;
        ws.nextDue = nextDue;
    }

    /**
     * {@code WindowSet.fire}, with the window's state written back first (the listener may reach it). Its
     * three lines are written out here rather than called: one call level less on a row that fires, 3-5 %
     * of the strategy thread on the sweep grid (C2 often left {@code WindowSet.fire}, with the listener
     * inlined into it, out of line).
     */
    private static void fire(InstrumentGroupRTIndicator g, Window w, long start, long stop, long nextDue,
                             double actual) {
        keep(w, g.windows, true, start, stop, nextDue);
        double prev = w.lastClose;
        w.lastClose = actual;
        w.listener.dispatchWindowClose(g.store(), start, stop, prev, actual);
    }
}
