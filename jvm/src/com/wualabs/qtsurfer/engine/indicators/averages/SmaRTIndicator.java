package com.wualabs.qtsurfer.engine.indicators.averages;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Simple moving average: the mean of the last {@code periods} inputs.
 *
 * <p>Discrete mode (the default): ready after {@code periods} inputs, NaN before.
 * Continuous mode: ready from the first input; until the window is full the value is the mean of all
 * inputs so far (an expanding mean), then the sliding mean.
 */
public final class SmaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final boolean discrete;
    private final DoubleRing ring;
    private double sum;

    public SmaRTIndicator(int periods) {
        this(null, periods, true);
    }

    public SmaRTIndicator(int periods, boolean discrete) {
        this(null, periods, discrete);
    }

    public SmaRTIndicator(RTIndicator source, int periods) {
        this(source, periods, true);
    }

    public SmaRTIndicator(RTIndicator source, int periods, boolean discrete) {
        super(source);
        this.periods = checkPeriods(periods);
        this.discrete = discrete;
        this.ring = new DoubleRing(periods);
    }

    @Override
    protected void accept(double x) {
        double old = ring.push(x);
        if (old == old) {
            sum += x - old;
            if (ring.wrapped()) {
                sum = ring.sum();
            }
        } else {
            sum += x;
        }
        int n = ring.size();
        if (n == periods) {
            value = sum / periods;
            ready = true;
        } else if (!discrete) {
            value = sum / n;
            ready = true;
        }
    }

    @Override
    protected void clear() {
        ring.clear();
        sum = 0;
    }

    public int getPeriods() {
        return periods;
    }

    public boolean isDiscrete() {
        return discrete;
    }
}
