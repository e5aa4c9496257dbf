package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;

/**
 * Engine-internal: advances a group with one event (fills its frame, runs due windows, steps every
 * indicator in registration order). Not part of the strategy API.
 */
public final class GroupDriver {

    private GroupDriver() {
    }

    public static void ticker(InstrumentGroupRTIndicator g, long ts, double bid, double bidSize, double ask,
                              double askSize, double open, double high, double low, double last, double vwap,
                              double volume, double quoteVolume, double percentChange) {
        g.frame.ticker(bid, bidSize, ask, askSize, open, high, low, last, vwap, volume, quoteVolume, percentChange);
        g.windows.beforeEvent(ts);
        g.stepAll();
    }

    /**
     * Row {@code i} of ticker columns (a feed's ticker: no open, high, low, vwap, quote volume or percent
     * change), as {@link #ticker} with that row's values and those fields NaN, reading the bid, ask, size and
     * volume columns only when a node of the group reads them (as {@link #kline(InstrumentGroupRTIndicator,
     * long, long, double[], double[], double[], double[], double[], int)} does for klines).
     */
    public static void ticker(InstrumentGroupRTIndicator g, long ts, double[] bid, double[] bidSize, double[] ask,
                              double[] askSize, double[] last, double[] volume, int i) {
        EventFrame f = g.frame;
        double price = last[i];
        f.tickerLast(price);
        g.windows.beforeEvent(ts); // reads node values, not the frame
        if (g.tickerDetail) { // asked for by a node, perhaps one a listener has just registered
            f.tickerDetail(bid[i], bidSize[i], ask[i], askSize[i], price, volume[i]);
        }
        g.stepAll();
    }

    /** A bar is assigned to windows by its open time and closes them by its close time. */
    public static void kline(InstrumentGroupRTIndicator g, long openTs, long closeTs, double open, double high,
                             double low, double close, double volume) {
        g.frame.kline(open, high, low, close, volume);
        g.windows.beforeEvent(openTs);
        g.stepAll();
        g.windows.afterBar(WindowSet.barEnd(closeTs));
    }

    /**
     * Row {@code i} of kline columns, as {@link #kline(InstrumentGroupRTIndicator, long, long, double, double,
     * double, double, double)} with that row's values, reading the open, high, low and volume columns only when
     * a node of the group reads them: a sweep's SMA crossover reads the close alone, and each column not read
     * is memory not streamed for every vector (beside a second engine host, as in a 2-shard sweep: 8-14 % of
     * the strategy thread's CPU, docs/benchmarks.md; alone on the machine, no change). The frame is filled
     * after the windows due before the event fired, so a node registered by their listener, which is stepped
     * with this event, gets the whole row.
     */
    public static void kline(InstrumentGroupRTIndicator g, long openTs, long closeTs, double[] open, double[] high,
                             double[] low, double[] close, double[] volume, int i) {
        EventFrame f = g.frame;
        f.klineClose(close[i]);
        g.windows.beforeEvent(openTs); // reads node values, not the frame
        if (g.klineDetail) { // asked for by a node, perhaps one a listener has just registered
            f.klineDetail(open[i], high[i], low[i], close[i], volume[i]);
        }
        g.stepAll();
        g.windows.afterBar(WindowSet.barEnd(closeTs));
    }

    /**
     * True when {@link #lazyKlines} and {@link #lazyTickers} apply to {@code g}: it steps no node and
     * has one window ({@link LazyRows}).
     */
    public static boolean takesLazyRows(InstrumentGroupRTIndicator g) {
        return LazyRows.applies(g);
    }

    /**
     * Rows {@code i .. end-1} of kline columns, each begun for {@code s} at its close time and fed as
     * {@link #kline(InstrumentGroupRTIndicator, long, long, double[], double[], double[], double[], double[],
     * int)} feeds it, for a group {@link #takesLazyRows} accepts. Returns the first row not fed (before
     * {@code end} when the group stopped qualifying); {@code at[0]} holds the row in progress when a
     * listener throws.
     */
    public static int lazyKlines(AbstractStrategy s, Instrument instrument, InstrumentGroupRTIndicator g,
                                 long[] openTs, long[] closeTs, double[] open, double[] high, double[] low,
                                 double[] close, double[] volume, int i, int end, int[] at) {
        LazyRows.Source rows = new LazyRows.Klines(openTs, closeTs, open, high, low, close, volume);
        return LazyRows.run(s, instrument, g, rows, i, end, at);
    }

    /**
     * Rows {@code i .. end-1} of ticker columns, as {@link #lazyKlines} for klines: each begun for {@code s}
     * at its time and fed as {@link #ticker(InstrumentGroupRTIndicator, long, double[], double[], double[],
     * double[], double[], double[], int)} feeds it.
     */
    public static int lazyTickers(AbstractStrategy s, Instrument instrument, InstrumentGroupRTIndicator g,
                                  long[] ts, double[] bid, double[] bidSize, double[] ask, double[] askSize,
                                  double[] last, double[] volume, int i, int end, int[] at) {
        LazyRows.Source rows = new LazyRows.Tickers(ts, bid, bidSize, ask, askSize, last, volume);
        return LazyRows.run(s, instrument, g, rows, i, end, at);
    }

    /** {@code g}'s events taken without stepping a node (a run answer's {@code stepless_events}). */
    public static int steplessEvents(InstrumentGroupRTIndicator g) {
        return g.steplessEvents();
    }

    public static void funding(InstrumentGroupRTIndicator g, long ts, double rate, double markPrice) {
        g.frame.funding(rate, markPrice);
        g.windows.beforeEvent(ts);
        g.stepAll();
    }
}
