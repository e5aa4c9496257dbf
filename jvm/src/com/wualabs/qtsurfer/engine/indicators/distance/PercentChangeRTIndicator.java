package com.wualabs.qtsurfer.engine.indicators.distance;

import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/** Percent change between consecutive inputs (a {@link RateChangeRTIndicator} with percent = true). */
public final class PercentChangeRTIndicator extends RateChangeRTIndicator {

    public PercentChangeRTIndicator() {
        super(null, true);
    }

    public PercentChangeRTIndicator(RTIndicator source) {
        super(source, true);
    }
}
