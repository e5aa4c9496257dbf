package com.wualabs.qtsurfer.engine.indicators.momentum.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Commodity channel index on bars: typical price {@code tp = (high + low + close) / 3},
 * {@code CCI = (tp - SMA(tp)) / (0.015 * meanDeviation)} with the mean absolute deviation of the last
 * {@code periods} typical prices from their mean (0 when the deviation is 0). Ready after
 * {@code periods} bars. Default 20.
 */
public final class CciRTIndicator extends BaseBarRTIndicator {

    private final int periods;
    private final DoubleRing tps;

    public CciRTIndicator() {
        this(null, 20);
    }

    public CciRTIndicator(int periods) {
        this(null, periods);
    }

    public CciRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        this.tps = new DoubleRing(periods);
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        double tp = (high + low + close) / 3.0;
        tps.push(tp);
        if (!tps.full()) {
            return;
        }
        double mean = tps.sum() / periods;
        double md = 0;
        for (int i = 0; i < periods; i++) {
            md += Math.abs(tps.get(i) - mean);
        }
        md /= periods;
        value = md == 0 ? 0.0 : (tp - mean) / (0.015 * md);
        ready = true;
    }

    @Override
    protected void clear() {
        tps.clear();
    }
}
