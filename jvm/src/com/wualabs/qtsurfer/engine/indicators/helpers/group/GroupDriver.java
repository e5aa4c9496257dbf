package com.wualabs.qtsurfer.engine.indicators.helpers.group;

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

    /** A bar is assigned to windows by its open time and closes them by its close time. */
    public static void kline(InstrumentGroupRTIndicator g, long openTs, long closeTs, double open, double high,
                             double low, double close, double volume) {
        g.frame.kline(open, high, low, close, volume);
        g.windows.beforeEvent(openTs);
        g.stepAll();
        g.windows.afterBar(closeTs == Long.MAX_VALUE ? closeTs : closeTs + 1);
    }

    public static void funding(InstrumentGroupRTIndicator g, long ts, double rate, double markPrice) {
        g.frame.funding(rate, markPrice);
        g.windows.beforeEvent(ts);
        g.stepAll();
    }
}
