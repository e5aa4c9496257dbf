package com.wualabs.qtsurfer.engine.indicators.core;

/**
 * An indicator that consumes whole bars (open, high, low, close, volume) rather than one value.
 *
 * <p>When registered with {@code add(name, indicator)} and {@link #wantsBars()} is true, the indicator
 * group feeds it the event's bar: a kline's OHLCV; for a ticker open = high = low = close = last and the
 * ticker's volume; for a funding event the rate and no volume ({@code NaN}).
 * {@link #update(double)} is the single-value fallback: the value is a bar with
 * open = high = low = close = value and volume 1.
 */
public interface BarRTIndicator extends RTIndicator {

    /** Consumes one bar and returns the new current value. */
    double updateBar(double open, double high, double low, double close, double volume);

    /** True when the group should feed bars (false when the indicator reads a source indicator instead). */
    default boolean wantsBars() {
        return true;
    }
}
