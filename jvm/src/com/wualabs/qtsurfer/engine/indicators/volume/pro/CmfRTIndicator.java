package com.wualabs.qtsurfer.engine.indicators.volume.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Chaikin money flow over the last {@code periods} bars: {@code sum(mfm * v) / sum(v)} with the money-flow
 * multiplier {@code mfm = ((close - low) - (high - close)) / (high - low)} (0 when high == low); 0 when the
 * volume sum is 0. Ready after {@code periods} bars. Default 20.
 */
public final class CmfRTIndicator extends BaseBarRTIndicator {

    private final DoubleRing mfv;
    private final DoubleRing vol;

    public CmfRTIndicator() {
        this(null, 20);
    }

    public CmfRTIndicator(int periods) {
        this(null, periods);
    }

    public CmfRTIndicator(RTIndicator source, int periods) {
        super(source);
        mfv = new DoubleRing(checkPeriods(periods));
        vol = new DoubleRing(periods);
    }

    /** The money-flow multiplier of a bar. */
    public static double multiplier(double high, double low, double close) {
        double range = high - low;
        return range == 0 ? 0.0 : ((close - low) - (high - close)) / range;
    }

    @Override
    protected boolean usesVolume() {
        return true;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        mfv.push(multiplier(high, low, close) * volume);
        vol.push(volume);
        if (mfv.full()) {
            double v = vol.sum();
            value = v == 0 ? 0.0 : mfv.sum() / v;
            ready = true;
        }
    }

    @Override
    protected void clear() {
        mfv.clear();
        vol.clear();
    }
}
