package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/** Counts consecutive updates in which the input fell; otherwise the same rules as {@link GainRTIndicator}. */
public class LossRTIndicator extends GainRTIndicator {

    public LossRTIndicator() {
        super();
    }

    public LossRTIndicator(boolean resetPeriodsOnSustain) {
        super(resetPeriodsOnSustain);
    }

    public LossRTIndicator(RTIndicator source) {
        super(source);
    }

    public LossRTIndicator(RTIndicator source, boolean resetPeriodsOnSustain) {
        super(source, resetPeriodsOnSustain);
    }

    @Override
    protected boolean advances(double x, double previous) {
        return x < previous;
    }
}
