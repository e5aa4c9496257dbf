package com.wualabs.qtsurfer.engine.indicators.volume.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * On-balance volume: 0 on the first bar, then {@code + volume} when the close rose, {@code - volume} when
 * it fell, unchanged when equal. Ready from the first bar.
 */
public final class ObvRTIndicator extends BaseBarRTIndicator {

    private double prevClose = Double.NaN;

    public ObvRTIndicator() {
        super();
    }

    public ObvRTIndicator(RTIndicator source) {
        super(source);
    }

    @Override
    protected boolean usesVolume() {
        return true;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        double pc = prevClose;
        prevClose = close;
        if (pc != pc) {
            value = 0;
            ready = true;
            return;
        }
        if (close > pc) {
            value += volume;
        } else if (close < pc) {
            value -= volume;
        }
    }

    @Override
    protected void clear() {
        prevClose = Double.NaN;
    }
}
