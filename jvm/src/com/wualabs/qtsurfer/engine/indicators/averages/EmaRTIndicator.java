package com.wualabs.qtsurfer.engine.indicators.averages;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Exponential moving average with {@code alpha = 2 / (periods + 1)}, seeded with the simple mean of the
 * first {@code periods} inputs: NaN before that, then {@code ema += alpha * (x - ema)}. Ready after
 * {@code periods} inputs.
 */
public final class EmaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final double alpha;
    private int count;
    private double seedSum;

    public EmaRTIndicator(int periods) {
        this(null, periods);
    }

    public EmaRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        this.alpha = 2.0 / (periods + 1);
    }

    @Override
    protected void accept(double x) {
        if (ready) {
            value += alpha * (x - value);
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

    public double getAlpha() {
        return alpha;
    }
}
