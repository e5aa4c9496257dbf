package com.wualabs.qtsurfer.engine.indicators.volatility.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Wilder's average true range on bars. {@code TR = high - low} on the first bar, then
 * {@code max(high - low, |high - prevClose|, |low - prevClose|)}; ATR is the mean of the first
 * {@code periods} TR values, then {@code (atr * (n - 1) + tr) / n}. Ready after {@code periods} bars.
 * Default 14. Fed single values, TR degenerates to {@code |x - prevX|}.
 */
public final class AtrRTIndicator extends BaseBarRTIndicator {

    private final int n;
    private double prevClose = Double.NaN;
    private int count;
    private double sum;

    public AtrRTIndicator() {
        this(null, 14);
    }

    public AtrRTIndicator(int periods) {
        this(null, periods);
    }

    public AtrRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.n = checkPeriods(periods);
    }

    /** The true range of a bar given the previous close (NaN for the first bar: high - low). */
    public static double trueRange(double high, double low, double prevClose) {
        if (prevClose != prevClose) {
            return high - low;
        }
        return Math.max(high - low, Math.max(Math.abs(high - prevClose), Math.abs(low - prevClose)));
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        double tr = trueRange(high, low, prevClose);
        prevClose = close;
        if (ready) {
            value = (value * (n - 1) + tr) / n;
            return;
        }
        sum += tr;
        if (++count == n) {
            value = sum / n;
            ready = true;
        }
    }

    @Override
    protected void clear() {
        prevClose = Double.NaN;
        count = 0;
        sum = 0;
    }
}
