package com.wualabs.qtsurfer.engine.indicators.volume.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Volume-weighted average price on bars, typical price {@code (high + low + close) / 3}:
 * {@code ()} cumulative {@code sum(tp * v) / sum(v)} (ready once some volume was seen);
 * {@code (periods)} over the last {@code periods} bars (ready when full and its volume is positive).
 * Bars without volume (NaN) are skipped.
 */
public final class VwapRTIndicator extends BaseBarRTIndicator {

    private final DoubleRing pv;
    private final DoubleRing vol;
    private double sumPv;
    private double sumV;

    public VwapRTIndicator() {
        this(null, 0);
    }

    public VwapRTIndicator(int periods) {
        this(null, checkPeriods(periods));
    }

    public VwapRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.pv = periods > 0 ? new DoubleRing(periods) : null;
        this.vol = periods > 0 ? new DoubleRing(periods) : null;
    }

    @Override
    protected boolean usesVolume() {
        return true;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        double tp = (high + low + close) / 3.0;
        if (pv == null) {
            sumPv += tp * volume;
            sumV += volume;
            if (sumV > 0) {
                value = sumPv / sumV;
                ready = true;
            }
            return;
        }
        pv.push(tp * volume);
        vol.push(volume);
        if (pv.full()) {
            double v = vol.sum();
            if (v > 0) {
                value = pv.sum() / v;
                ready = true;
            }
        }
    }

    @Override
    protected void clear() {
        sumPv = 0;
        sumV = 0;
        if (pv != null) {
            pv.clear();
            vol.clear();
        }
    }
}
