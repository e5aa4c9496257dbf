package com.wualabs.qtsurfer.engine.core;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

/**
 * One candle (OHLCV only: no book sizes, no vwap, no percentage change). A plain immutable class:
 * read it with getters ({@code kline.getClose()}, {@code kline.getCloseTime()}). Times are epoch
 * milliseconds; {@code closeTime} may be exclusive ({@code openTime + width}) or inclusive
 * ({@code openTime + width - 1}).
 */
public final class Kline {

    private final Instrument instrument;
    private final long openTime;
    private final long closeTime;
    private final double open;
    private final double high;
    private final double low;
    private final double close;
    private final double volume;

    public Kline(Instrument instrument, long openTime, long closeTime,
                 double open, double high, double low, double close, double volume) {
        this.instrument = instrument;
        this.openTime = openTime;
        this.closeTime = closeTime;
        this.open = open;
        this.high = high;
        this.low = low;
        this.close = close;
        this.volume = volume;
    }

    public Instrument getInstrument() {
        return instrument;
    }

    public long getOpenTime() {
        return openTime;
    }

    public long getCloseTime() {
        return closeTime;
    }

    public double getOpen() {
        return open;
    }

    public double getHigh() {
        return high;
    }

    public double getLow() {
        return low;
    }

    public double getClose() {
        return close;
    }

    public double getVolume() {
        return volume;
    }

    @Override
    public String toString() {
        return "Kline[" + instrument + " " + openTime + ".." + closeTime + " o=" + open + " h=" + high
                + " l=" + low + " c=" + close + " v=" + volume + "]";
    }
}
