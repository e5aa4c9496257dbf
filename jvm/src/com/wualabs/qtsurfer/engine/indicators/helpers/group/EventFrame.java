package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.internal.RowClock;
import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;

/**
 * Engine-internal: the primitive fields of the event being processed (no allocation per event).
 * Field codes are {@link TickerValueSource} ordinals, plus {@link #PRIMARY}.
 */
public final class EventFrame {

    /** The event's primary value: ticker last, kline close, funding rate. */
    public static final int PRIMARY = -1;

    private static final int BID = TickerValueSource.Bid.ordinal();
    private static final int BID_SIZE = TickerValueSource.BidSize.ordinal();
    private static final int ASK = TickerValueSource.Ask.ordinal();
    private static final int ASK_SIZE = TickerValueSource.AskSize.ordinal();
    private static final int OPEN = TickerValueSource.Open.ordinal();
    private static final int HIGH = TickerValueSource.High.ordinal();
    private static final int LOW = TickerValueSource.Low.ordinal();
    private static final int CLOSE = TickerValueSource.Close.ordinal();
    private static final int VWAP = TickerValueSource.Vwap.ordinal();
    private static final int VOLUME = TickerValueSource.Volume.ordinal();
    private static final int VOLUME_QUOTE = TickerValueSource.VolumeQuote.ordinal();
    private static final int PERCENT_CHANGE = TickerValueSource.PercentChange.ordinal();
    private static final int AUTO_ASK_CLOSE = TickerValueSource.AutoAskClose.ordinal();
    private static final int RATE = TickerValueSource.Rate.ordinal();

    double bid;
    double bidSize;
    double ask;
    double askSize;
    double open;
    double high;
    double low;
    double close;
    double vwap;
    double volume;
    double quoteVolume;
    double percentChange;
    double rate;
    double primary;
    // the bar handed to bar indicators
    double barOpen;
    double barHigh;
    double barLow;
    double barClose;
    double barVolume;
    /** The index of the event in the frame, from 0 (-1 before the first): replayed series are read at it. */
    int index = -1;
    /** Events the group has stepped, counted while its nodes are LAZY: their values are read at it. */
    int done;
    /** True while the fields a kline leaves NaN are NaN (so consecutive klines skip those stores). */
    private boolean klineFields;
    /** True while the fields a ticker from columns leaves NaN are NaN ({@link #tickerLast}). */
    private boolean tickerFields;
    /**
     * Set while a column loop keeps the close in a clock rather than in {@link #close} and {@link #primary}
     * ({@code LazyRows}); a read takes it from there, any event written here ends it.
     */
    private RowClock rowClock;

    /** The close read from {@code clock} from now on, until an event is written here or {@link #endRowClock}. */
    void useRowClock(RowClock clock) {
        rowClock = clock;
    }

    /** Writes the clock's close back, if {@code clock} is still the one in use. */
    void endRowClock(RowClock clock) {
        if (rowClock == clock) {
            closeFrom(clock);
            rowClock = null;
        }
    }

    /** The close and primary value of the clock's row, as {@link #klineAt} writes them. */
    private void closeFrom(RowClock clock) {
        double c = clock.close();
        close = c;
        primary = c;
    }

    double get(int code) {
        RowClock clock = rowClock;
        if (clock != null) {
            closeFrom(clock);
        }
        if (code == PRIMARY) {
            return primary;
        }
        if (code == CLOSE) {
            return close;
        }
        if (code == BID) {
            return bid;
        }
        if (code == ASK) {
            return ask;
        }
        if (code == BID_SIZE) {
            return bidSize;
        }
        if (code == ASK_SIZE) {
            return askSize;
        }
        if (code == OPEN) {
            return open;
        }
        if (code == HIGH) {
            return high;
        }
        if (code == LOW) {
            return low;
        }
        if (code == VWAP) {
            return vwap;
        }
        if (code == VOLUME) {
            return volume;
        }
        if (code == VOLUME_QUOTE) {
            return quoteVolume;
        }
        if (code == PERCENT_CHANGE) {
            return percentChange;
        }
        if (code == AUTO_ASK_CLOSE) {
            return ask > 0 && ask < Double.POSITIVE_INFINITY ? ask : close;
        }
        if (code == RATE) {
            return rate;
        }
        return Double.NaN;
    }

    void ticker(double bid, double bidSize, double ask, double askSize, double open, double high, double low,
                double last, double vwap, double volume, double quoteVolume, double percentChange) {
        index++;
        this.bid = bid;
        this.bidSize = bidSize;
        this.ask = ask;
        this.askSize = askSize;
        this.open = open;
        this.high = high;
        this.low = low;
        this.close = last;
        this.rowClock = null;
        this.vwap = vwap;
        this.volume = volume;
        this.quoteVolume = quoteVolume;
        this.percentChange = percentChange;
        this.rate = Double.NaN;
        this.klineFields = false;
        this.tickerFields = false;
        this.primary = last;
        this.barOpen = last;
        this.barHigh = last;
        this.barLow = last;
        this.barClose = last;
        this.barVolume = volume;
    }

    /** True for the codes a ticker fills from its own columns besides the last price (see {@link #tickerLast}). */
    static boolean tickerDetail(int code) {
        return code == BID || code == BID_SIZE || code == ASK || code == ASK_SIZE || code == VOLUME
                || code == AUTO_ASK_CLOSE;
    }

    /**
     * The last price of a ticker that carries no open, high, low, vwap, quote volume or percent change (a
     * feed's ticker, as {@code StrategyRun.onTicker} passes it), as {@link #ticker} sets it; its bid, ask,
     * sizes, volume and bar keep older values until {@link #tickerDetail} fills them, which the driver does
     * whenever a node of the group reads them ({@code InstrumentGroupRTIndicator.tickerDetail}).
     */
    void tickerLast(double last) {
        tickerAt(index + 1, last);
    }

    /** {@link #tickerLast} for the event at {@code index} (rows a loop took without filling the frame). */
    void tickerAt(int index, double last) {
        this.index = index;
        this.rowClock = null;
        if (!tickerFields) {
            double nan = Double.NaN;
            this.open = nan;
            this.high = nan;
            this.low = nan;
            this.vwap = nan;
            this.quoteVolume = nan;
            this.percentChange = nan;
            this.rate = nan;
            this.klineFields = false;
            tickerFields = true;
        }
        this.close = last;
        this.primary = last;
    }

    /** The rest of the ticker {@link #tickerLast} began, as {@link #ticker} sets it. */
    void tickerDetail(double bid, double bidSize, double ask, double askSize, double last, double volume) {
        this.bid = bid;
        this.bidSize = bidSize;
        this.ask = ask;
        this.askSize = askSize;
        this.volume = volume;
        this.barOpen = last;
        this.barHigh = last;
        this.barLow = last;
        this.barClose = last;
        this.barVolume = volume;
    }

    /** True for the codes a kline fills from its own columns besides the close (see {@link #klineClose}). */
    static boolean klineDetail(int code) {
        return code == OPEN || code == HIGH || code == LOW || code == VOLUME;
    }

    /**
     * The close of a kline, as {@link #kline} sets it; its open, high, low, volume and bar keep older values
     * until {@link #klineDetail} fills them, which the driver does whenever a node of the group reads them
     * ({@code InstrumentGroupRTIndicator.klineDetail}). Together the two set what {@link #kline} sets.
     */
    void klineClose(double close) {
        klineAt(index + 1, close);
    }

    /** {@link #klineClose} for the event at {@code index} (rows a loop took without filling the frame). */
    void klineAt(int index, double close) {
        this.index = index;
        this.rowClock = null;
        tickerFields = false;
        if (!klineFields) {
            // The fields a kline does not carry: NaN until a ticker or funding event sets them.
            double nan = Double.NaN;
            this.bid = nan;
            this.bidSize = nan;
            this.ask = nan;
            this.askSize = nan;
            this.vwap = nan;
            this.quoteVolume = nan;
            this.percentChange = nan;
            this.rate = nan;
            klineFields = true;
        }
        this.close = close;
        this.primary = close;
    }

    /** The rest of the kline {@link #klineClose} began, as {@link #kline} sets it. */
    void klineDetail(double open, double high, double low, double close, double volume) {
        tickerFields = false;
        this.open = open;
        this.high = high;
        this.low = low;
        this.volume = volume;
        this.barOpen = open;
        this.barHigh = high;
        this.barLow = low;
        this.barClose = close;
        this.barVolume = volume;
    }

    void kline(double open, double high, double low, double close, double volume) {
        klineClose(close);
        klineDetail(open, high, low, close, volume);
    }

    void funding(double rate, double markPrice) {
        index++;
        this.rowClock = null;
        tickerFields = false;
        double nan = Double.NaN;
        this.bid = nan;
        this.bidSize = nan;
        this.ask = nan;
        this.askSize = nan;
        this.open = nan;
        this.high = nan;
        this.low = nan;
        this.close = markPrice;
        this.vwap = nan;
        this.volume = nan;
        this.quoteVolume = nan;
        this.percentChange = nan;
        this.rate = rate;
        this.klineFields = false;
        this.primary = rate;
        this.barOpen = rate;
        this.barHigh = rate;
        this.barLow = rate;
        this.barClose = rate;
        this.barVolume = nan;
    }
}
