package com.wualabs.qtsurfer.engine.indicators.statistics;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RollingMoments;

/**
 * Variance of the last {@code periods} inputs: population (divide by n, the default) or sample
 * (divide by n - 1). Ready after {@code periods} inputs (a sample variance needs periods >= 2).
 */
public final class VarianceRTIndicator extends BaseRTIndicator {

    private final RollingMoments moments;
    private final boolean sample;

    public VarianceRTIndicator(int periods) {
        this(null, periods, false);
    }

    public VarianceRTIndicator(int periods, boolean sample) {
        this(null, periods, sample);
    }

    public VarianceRTIndicator(RTIndicator source, int periods) {
        this(source, periods, false);
    }

    public VarianceRTIndicator(RTIndicator source, int periods, boolean sample) {
        super(source);
        this.moments = new RollingMoments(checkPeriods(periods));
        this.sample = sample;
    }

    @Override
    protected void accept(double x) {
        moments.push(x);
        if (moments.full()) {
            value = sample ? moments.sampleVariance() : moments.variance();
            ready = value == value;
        }
    }

    @Override
    protected void clear() {
        moments.clear();
    }
}
