package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.internal.Notices;
import com.wualabs.qtsurfer.engine.internal.SignalLog;

/** Engine-internal bridge used by the runtime harness and the indicator group. Not part of the strategy API. */
public final class StrategyInternals {

    private StrategyInternals() {
    }

    public static Notices notices(AbstractStrategy s) {
        return s.notices();
    }

    public static SignalLog signals(AbstractStrategy s) {
        return s.signals();
    }

    /** Asks {@code acceptInstrument} once per instrument and caches the answer. */
    public static boolean accepted(AbstractStrategy s, Instrument instrument) {
        return s.accepted(instrument);
    }

    /** Sets the event time and instrument used to stamp signals emitted from now on. */
    public static void beginEvent(AbstractStrategy s, Instrument instrument, long timestamp) {
        s.beginEvent(instrument, timestamp);
    }

    public static void fastTicker(AbstractTickerStrategy s, Instrument instrument, long ts, double bid, double bidSize,
                                  double ask, double askSize, double last, double volume) {
        s.fastUpdate(instrument, ts, bid, bidSize, ask, askSize, last, volume);
    }

    public static void fastKline(AbstractKlineStrategy s, Instrument instrument, long openTs, long closeTs,
                                 double open, double high, double low, double close, double volume) {
        s.fastUpdate(instrument, openTs, closeTs, open, high, low, close, volume);
    }

    public static void fastFunding(AbstractFundingRateStrategy s, Instrument instrument, long ts, double rate,
                                   double markPrice) {
        s.fastUpdate(instrument, ts, rate, markPrice);
    }
}
