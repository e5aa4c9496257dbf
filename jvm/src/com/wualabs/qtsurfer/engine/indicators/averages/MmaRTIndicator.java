package com.wualabs.qtsurfer.engine.indicators.averages;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Modified moving average (Wilder's smoothing, {@code alpha = 1 / periods}), seeded with the simple mean
 * of the first {@code periods} inputs; then {@code mma = (mma * (periods - 1) + x) / periods}.
 */
public final class MmaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private int count;
    private double seedSum;

    public MmaRTIndicator(int periods) {
        this(null, periods);
    }

    public MmaRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
    }

    @Override
    protected void accept(double x) {
        if (ready) {
            value = (value * (periods - 1) + x) / periods;
            return;
        }
        seedSum += x;
        if (++count == periods) {
            value = seedSum / periods;
            ready = true;
        }
    }

    @Override
    protected void clear() {
        count = 0;
        seedSum = 0;
    }

    public int getPeriods() {
        return periods;
    }
}
