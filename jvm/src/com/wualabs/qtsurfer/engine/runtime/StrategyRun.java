package com.wualabs.qtsurfer.engine.runtime;

import com.wualabs.qtsurfer.engine.core.FundingRate;
import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.internal.Notices;
import com.wualabs.qtsurfer.engine.internal.SignalLog;
import com.wualabs.qtsurfer.engine.strategy.AbstractFundingRateStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractMultiSourceStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;
import com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode;

import java.util.List;
import java.util.Map;

/**
 * One run of one strategy instance over one instrument's events, fed in time order. Not thread-safe.
 * Exceptions thrown by strategy code propagate unchanged from the {@code on*} methods.
 *
 * <p>Signals are stamped with the event time of the event being processed when they were emitted (a
 * kline's close time). Ticker fields the feed does not carry (open, high, low, vwap, quoteVolume,
 * percentageChange) are NaN.
 */
public final class StrategyRun {

    private final AbstractStrategy strategy;
    private final Instrument instrument;
    private final boolean fast;
    private final boolean fastTicker;
    private final boolean fastKline;
    private final boolean fastFunding;
    private final AbstractTickerStrategy ticker;
    private final AbstractKlineStrategy kline;
    private final AbstractFundingRateStrategy funding;
    private final AbstractMultiSourceStrategy multi;
    private final SignalLog signals;
    private final Notices notices;
    /** 0 = not asked yet, 1 = accepted, -1 = rejected by acceptInstrument. */
    private int admission;

    StrategyRun(AbstractStrategy strategy, Instrument instrument, boolean fast) {
        this.strategy = strategy;
        this.instrument = instrument;
        this.fast = fast;
        this.ticker = strategy instanceof AbstractTickerStrategy ? (AbstractTickerStrategy) strategy : null;
        this.kline = strategy instanceof AbstractKlineStrategy ? (AbstractKlineStrategy) strategy : null;
        this.funding = strategy instanceof AbstractFundingRateStrategy ? (AbstractFundingRateStrategy) strategy : null;
        this.multi = strategy instanceof AbstractMultiSourceStrategy ? (AbstractMultiSourceStrategy) strategy : null;
        this.fastTicker = fast && ticker != null;
        this.fastKline = fast && kline != null;
        this.fastFunding = fast && funding != null;
        this.signals = StrategyInternals.signals(strategy);
        this.notices = StrategyInternals.notices(strategy);
    }

    /** One ticker event at {@code ts} (epoch ms). */
    public void onTicker(long ts, double bid, double bidSize, double ask, double askSize, double last, double volume) {
        if (admission <= 0 && !admit()) {
            return;
        }
        if (fastTicker) {
            StrategyInternals.fastTicker(ticker, instrument, ts, bid, bidSize, ask, askSize, last, volume);
            return;
        }
        double nan = Double.NaN;
        Ticker t = new Ticker(instrument, bid, bidSize, ask, askSize, nan, nan, nan, last, nan, volume, nan, nan, ts);
        StrategyInternals.beginEvent(strategy, instrument, ts);
        if (ticker != null) {
            ticker.update(t);
        } else if (multi != null) {
            multi.onTicker(t);
        } else {
            throw wrongSource("ticker");
        }
    }

    /** One bar covering {@code [openTs, closeTs]}; its event time is {@code closeTs}. */
    public void onKline(long openTs, long closeTs, double open, double high, double low, double close, double volume) {
        if (admission <= 0 && !admit()) {
            return;
        }
        if (fastKline) {
            StrategyInternals.fastKline(kline, instrument, openTs, closeTs, open, high, low, close, volume);
            return;
        }
        Kline k = new Kline(instrument, openTs, closeTs, open, high, low, close, volume);
        StrategyInternals.beginEvent(strategy, instrument, closeTs);
        if (kline != null) {
            kline.update(k);
        } else if (multi != null) {
            multi.onKline(k);
        } else {
            throw wrongSource("kline");
        }
    }

    /**
     * Rows {@code start .. end-1} of ticker columns, as {@link #onTicker} row by row (time, bid, bid size, ask,
     * ask size, last, volume); {@code progress[0]} ends up holding the number of rows delivered, also when the
     * strategy throws. On the fast path the columns a strategy's indicators do not read are not read.
     */
    public void onTickers(long[] ts, double[] bid, double[] bidSize, double[] ask, double[] askSize,
                          double[] last, double[] volume, int start, int end, long[] progress) {
        if (fastTicker && start < end && (admission > 0 || admit())) {
            StrategyInternals.fastTickers(ticker, instrument, ts, bid, bidSize, ask, askSize, last, volume, start,
                    end, progress);
            return;
        }
        int i = start;
        try {
            for (; i < end; i++) {
                onTicker(ts[i], bid[i], bidSize[i], ask[i], askSize[i], last[i], volume[i]);
            }
        } finally {
            progress[0] = i - start;
        }
    }

    /**
     * Rows {@code start .. end-1} of kline columns, as {@link #onKline} row by row (open time, close time,
     * open, high, low, close, volume); {@code progress[0]} ends up holding the number of rows delivered, also
     * when the strategy throws. On the fast path the columns a strategy's indicators do not read are not read.
     */
    public void onKlines(long[] openTs, long[] closeTs, double[] open, double[] high, double[] low,
                         double[] close, double[] volume, int start, int end, long[] progress) {
        if (fastKline && start < end && (admission > 0 || admit())) {
            StrategyInternals.fastKlines(kline, instrument, openTs, closeTs, open, high, low, close, volume, start,
                    end, progress);
            return;
        }
        int i = start;
        try {
            for (; i < end; i++) {
                onKline(openTs[i], closeTs[i], open[i], high[i], low[i], close[i], volume[i]);
            }
        } finally {
            progress[0] = i - start;
        }
    }

    /** One funding-rate update at {@code ts}; {@code markPrice} may be NaN. */
    public void onFunding(long ts, double rate, double markPrice) {
        if (admission <= 0 && !admit()) {
            return;
        }
        if (fastFunding) {
            StrategyInternals.fastFunding(funding, instrument, ts, rate, markPrice);
            return;
        }
        FundingRate f = new FundingRate(instrument, rate, ts, markPrice);
        StrategyInternals.beginEvent(strategy, instrument, ts);
        if (funding != null) {
            funding.update(f);
        } else if (multi != null) {
            multi.onFundingRate(f);
        } else {
            throw wrongSource("funding");
        }
    }

    private boolean admit() {
        if (admission == 0) {
            admission = StrategyInternals.accepted(strategy, instrument) ? 1 : -1;
            if (admission < 0) {
                notices.add("instrument " + instrument.symbol() + " was rejected by acceptInstrument(); "
                        + "no events were processed");
            }
        }
        return admission > 0;
    }

    private IllegalStateException wrongSource(String source) {
        return new IllegalStateException(strategy.getClass().getName() + " does not consume " + source + " events");
    }

    public int signalCount() {
        return signals.size();
    }

    /**
     * Forgets the signals read so far (and the count of dropped ones): a live session reads the
     * signals of each batch of events, then clears them, so the next read holds only the next
     * batch's and the per-run cap applies to a batch.
     */
    public void clearSignals() {
        signals.clear();
    }

    /** Signals emitted beyond the per-run cap ({@code SignalLog.MAX_SIGNALS}) and not kept. */
    public long signalsDropped() {
        return signals.dropped();
    }

    /** Event time (epoch ms) of each signal. */
    public long[] signalTs() {
        return signals.timestamps();
    }

    /** +1 buy, -1 sell, 0 info, per signal. */
    public byte[] signalSide() {
        return signals.sides();
    }

    /** Price of each signal (NaN for info signals). */
    public double[] signalPrice() {
        return signals.prices();
    }

    /** Fields of each signal (an empty map for plain buys and sells), in signal order. */
    public List<Map<String, Object>> signalData() {
        return signals.data();
    }

    /** Indices of the signals that carry fields, ascending: {@link #signalData()} without the empty maps. */
    public int[] signalFieldIndices() {
        return signals.fieldIndices();
    }

    /** The fields of the signals {@link #signalFieldIndices()} lists, in the same order. */
    public List<Map<String, Object>> signalFields() {
        return signals.fieldMaps();
    }

    /** Engine notices and log lines, in order first seen. */
    public List<String> notices() {
        return notices.snapshot();
    }

    /** {@code getExecutionMode(instrument)} of the strategy (LONG when it returns null). */
    public ExecutionMode executionMode() {
        ExecutionMode m = strategy.getExecutionMode(instrument);
        return m == null ? ExecutionMode.LONG : m;
    }

    /** The value passed to {@code setPercentGain}, NaN when never set. */
    public double percentGain() {
        return strategy.getPercentGain();
    }

    public boolean multiEntryEnabled() {
        return strategy.isMultiEntryEnabled();
    }

    /** The strategy instance (for inspection). */
    public AbstractStrategy strategy() {
        return strategy;
    }

    public Instrument instrument() {
        return instrument;
    }

    /**
     * True when every event of {@code dataKind} ({@code ticker}, {@code kline} or {@code funding})
     * goes straight to the instrument's indicator group, one event a row.
     */
    public boolean usesFastPathFor(String dataKind) {
        switch (dataKind) {
            case "ticker":
                return fastTicker;
            case "kline":
                return fastKline;
            case "funding":
                return fastFunding;
            default:
                return false;
        }
    }

    /** True when events bypass {@code update(...)} because the strategy does not override it. */
    public boolean usesFastPath() {
        return fast;
    }
}
