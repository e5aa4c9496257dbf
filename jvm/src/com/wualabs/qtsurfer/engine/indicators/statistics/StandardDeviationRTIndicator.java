package com.wualabs.qtsurfer.engine.indicators.statistics;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RollingMoments;

/**
 * Standard deviation of the last {@code periods} inputs: population (divide by n, the default, the same
 * as Bollinger's) or sample (divide by n - 1). Ready after {@code periods} inputs.
 */
public final class StandardDeviationRTIndicator extends BaseRTIndicator {

    private final RollingMoments moments;
    private final boolean sample;

    public StandardDeviationRTIndicator(int periods) {
        this(null, periods, false);
    }

    public StandardDeviationRTIndicator(int periods, boolean sample) {
        this(null, periods, sample);
    }

    public StandardDeviationRTIndicator(RTIndicator source, int periods) {
        this(source, periods, false);
    }

    public StandardDeviationRTIndicator(RTIndicator source, int periods, boolean sample) {
        super(source);
        this.moments = new RollingMoments(checkPeriods(periods));
        this.sample = sample;
    }

    @Override
    protected void accept(double x) {
        moments.push(x);
        if (moments.full()) {
            value = Math.sqrt(sample ? moments.sampleVariance() : moments.variance());
            ready = value == value;
        }
    }

    /** The mean of the same window. */
    public double getMean() {
        return moments.mean();
    }

    @Override
    protected void clear() {
        moments.clear();
    }
}
