package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Base of the ratios computed over the last {@code periods} simple returns {@code x_t / x_(t-1) - 1}
 * (a zero previous value yields no return). Ready after {@code periods + 1} inputs.
 */
abstract class ReturnsRTIndicator extends BaseRTIndicator {

    protected final DoubleRing returns;
    private double prev = Double.NaN;

    ReturnsRTIndicator(RTIndicator source, int periods) {
        super(source);
        returns = new DoubleRing(checkPeriods(periods));
    }

    @Override
    protected final void accept(double x) {
        double p = prev;
        prev = x;
        if (p != p || p == 0) {
            return;
        }
        returns.push(x / p - 1);
        if (returns.full()) {
            value = compute();
            ready = true;
        }
    }

    protected abstract double compute();

    @Override
    protected final void clear() {
        returns.clear();
        prev = Double.NaN;
    }
}
