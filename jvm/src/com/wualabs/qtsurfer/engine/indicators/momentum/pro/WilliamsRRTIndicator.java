package com.wualabs.qtsurfer.engine.indicators.momentum.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Williams %R on bars: {@code -100 * (HH - close) / (HH - LL)} over the last {@code periods} bars
 * (-50 when HH == LL). Ready after {@code periods} bars. Default 14.
 */
public final class WilliamsRRTIndicator extends BaseBarRTIndicator {

    private final DoubleRing highs;
    private final DoubleRing lows;

    public WilliamsRRTIndicator() {
        this(null, 14);
    }

    public WilliamsRRTIndicator(int periods) {
        this(null, periods);
    }

    public WilliamsRRTIndicator(RTIndicator source, int periods) {
        super(source);
        highs = new DoubleRing(checkPeriods(periods));
        lows = new DoubleRing(periods);
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        highs.push(high);
        lows.push(low);
        if (!highs.full()) {
            return;
        }
        double hh = highs.max();
        double ll = lows.min();
        value = hh == ll ? -50.0 : -100.0 * (hh - close) / (hh - ll);
        ready = true;
    }

    @Override
    protected void clear() {
        highs.clear();
        lows.clear();
    }
}
