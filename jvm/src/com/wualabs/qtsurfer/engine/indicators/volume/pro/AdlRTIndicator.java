package com.wualabs.qtsurfer.engine.indicators.volume.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Accumulation / distribution line: the running sum of {@code mfm * volume} (see
 * {@link CmfRTIndicator#multiplier}). Ready from the first bar.
 */
public final class AdlRTIndicator extends BaseBarRTIndicator {

    private double adl;

    public AdlRTIndicator() {
        super();
    }

    public AdlRTIndicator(RTIndicator source) {
        super(source);
    }

    @Override
    protected boolean usesVolume() {
        return true;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        adl += CmfRTIndicator.multiplier(high, low, close) * volume;
        value = adl;
        ready = true;
    }

    @Override
    protected void clear() {
        adl = 0;
    }
}
