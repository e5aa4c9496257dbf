package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.internal.Notices;
import com.wualabs.qtsurfer.engine.internal.RowClock;
import com.wualabs.qtsurfer.engine.internal.RunSeries;
import com.wualabs.qtsurfer.engine.internal.SignalLog;
import com.wualabs.qtsurfer.engine.internal.WindowClock;

import java.util.function.Consumer;
import java.util.function.Supplier;

/** Engine-internal bridge used by the runtime harness and the indicator group. Not part of the strategy API. */
public final class StrategyInternals {

    private static final ThreadLocal<Consumer<AbstractStrategy>> CONSTRUCTION_HOOK = new ThreadLocal<>();

    private StrategyInternals() {
    }

    /**
     * Runs {@code construct} with {@code hook} armed: the first strategy constructed on this thread calls it
     * from the base-class constructor (before subclass field initializers and constructor body).
     */
    public static <T> T constructWith(Consumer<AbstractStrategy> hook, Supplier<T> construct) {
        CONSTRUCTION_HOOK.set(hook);
        try {
            return construct.get();
        } finally {
            CONSTRUCTION_HOOK.remove();
        }
    }

    static void onConstruct(AbstractStrategy s) {
        Consumer<AbstractStrategy> hook = CONSTRUCTION_HOOK.get();
        if (hook != null) {
            CONSTRUCTION_HOOK.remove();
            hook.accept(s);
        }
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

    /**
     * Lets the strategy's indicator groups take the values of their data-fed indicators from
     * {@code run} (before the first event; see {@code InstrumentGroupRTIndicator.useSeries}).
     */
    public static void useSeries(AbstractStrategy s, RunSeries run) {
        s.useSeries(run);
    }

    /** How many of the strategy's indicators took a series from the one {@link #useSeries} gave. */
    public static int precomputedIndicators(AbstractStrategy s) {
        return s.precomputedIndicators();
    }

    /** How many events the strategy's groups took without stepping any indicator (all replaying). */
    public static long steplessEvents(AbstractStrategy s) {
        return s.steplessEvents();
    }

    /** Sets the event time and instrument used to stamp signals emitted from now on. */
    public static void beginEvent(AbstractStrategy s, Instrument instrument, long timestamp) {
        s.beginEvent(instrument, timestamp);
    }

    /** The strategy's event read from {@code clock}'s row until the clock is ended (see {@link AbstractStrategy}). */
    public static void useRowClock(AbstractStrategy s, RowClock clock) {
        s.useRowClock(clock);
    }

    /**
     * The clock's row written back as the strategy's event, unless {@code keepByHand} and an event was begun
     * by hand during that row.
     */
    public static void endRowClock(AbstractStrategy s, RowClock clock, boolean keepByHand) {
        s.endRowClock(clock, keepByHand);
    }

    /** The listener's window bounds read from {@code clock} until {@link #endWindowClock} (see {@link WindowClock}). */
    public static void useWindowClock(AbstractWindowListener listener, WindowClock clock) {
        listener.useWindowClock(clock);
    }

    /** The listener's clock stopped, its bounds those of the window {@code [openMillis, closeMillis)} that fired last. */
    public static void endWindowClock(AbstractWindowListener listener, long openMillis, long closeMillis) {
        listener.endWindowClock(openMillis, closeMillis);
    }

    public static void fastTicker(AbstractTickerStrategy s, Instrument instrument, long ts, double bid, double bidSize,
                                  double ask, double askSize, double last, double volume) {
        s.fastUpdate(instrument, ts, bid, bidSize, ask, askSize, last, volume);
    }

    public static void fastKline(AbstractKlineStrategy s, Instrument instrument, long openTs, long closeTs,
                                 double open, double high, double low, double close, double volume) {
        s.fastUpdate(instrument, openTs, closeTs, open, high, low, close, volume);
    }

    public static void fastTickers(AbstractTickerStrategy s, Instrument instrument, long[] ts, double[] bid,
                                   double[] bidSize, double[] ask, double[] askSize, double[] last, double[] volume,
                                   int start, int end, long[] progress) {
        s.fastTickers(instrument, ts, bid, bidSize, ask, askSize, last, volume, start, end, progress);
    }

    public static void fastKlines(AbstractKlineStrategy s, Instrument instrument, long[] openTs, long[] closeTs,
                                  double[] open, double[] high, double[] low, double[] close, double[] volume,
                                  int start, int end, long[] progress) {
        s.fastKlines(instrument, openTs, closeTs, open, high, low, close, volume, start, end, progress);
    }

    public static void fastFunding(AbstractFundingRateStrategy s, Instrument instrument, long ts, double rate,
                                   double markPrice) {
        s.fastUpdate(instrument, ts, rate, markPrice);
    }
}
