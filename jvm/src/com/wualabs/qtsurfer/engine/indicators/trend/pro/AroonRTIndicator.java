package com.wualabs.qtsurfer.engine.indicators.trend.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Aroon on bars over the last {@code n + 1} bars: {@code up = 100 * (n - barsSinceHighestHigh) / n},
 * {@code down = 100 * (n - barsSinceLowestLow) / n} (ties resolve to the most recent bar). The value is
 * the oscillator {@code up - down}; {@link #getUp()} / {@link #getDown()} give the lines. Ready after
 * {@code n + 1} bars. Default 25.
 */
public final class AroonRTIndicator extends BaseBarRTIndicator {

    private final int n;
    private final DoubleRing highs;
    private final DoubleRing lows;
    private double up = Double.NaN;
    private double down = Double.NaN;

    public AroonRTIndicator() {
        this(null, 25);
    }

    public AroonRTIndicator(int periods) {
        this(null, periods);
    }

    public AroonRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.n = checkPeriods(periods);
        highs = new DoubleRing(periods + 1);
        lows = new DoubleRing(periods + 1);
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        highs.push(high);
        lows.push(low);
        if (!highs.full()) {
            return;
        }
        int hi = 0;
        int lo = 0;
        for (int i = 1; i <= n; i++) {
            if (highs.get(i) >= highs.get(hi)) {
                hi = i;
            }
            if (lows.get(i) <= lows.get(lo)) {
                lo = i;
            }
        }
        up = 100.0 * hi / n;
        down = 100.0 * lo / n;
        value = up - down;
        ready = true;
    }

    public double getUp() {
        return up;
    }

    public double getDown() {
        return down;
    }

    @Override
    protected void clear() {
        highs.clear();
        lows.clear();
        up = Double.NaN;
        down = Double.NaN;
    }
}
