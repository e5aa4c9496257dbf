package com.wualabs.qtsurfer.engine.indicators.volatility.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RollingMoments;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

/**
 * Population standard deviation of the last {@code periods} percent returns
 * {@code 100 * (x_t / x_(t-1) - 1)} (a zero previous value yields no return). Ready after
 * {@code periods + 1} inputs. Display hint PERCENT.
 */
public final class PercentVolatilityRTIndicator extends BaseRTIndicator {

    private final RollingMoments moments;
    private double prev = Double.NaN;

    public PercentVolatilityRTIndicator(int periods) {
        this(null, periods);
    }

    public PercentVolatilityRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.moments = new RollingMoments(checkPeriods(periods));
        withDisplayHint(DisplayHint.PERCENT);
    }

    @Override
    protected void accept(double x) {
        double p = prev;
        prev = x;
        if (p != p || p == 0) {
            return;
        }
        moments.push(100.0 * (x / p - 1));
        if (moments.full()) {
            value = Math.sqrt(moments.variance());
            ready = true;
        }
    }

    @Override
    protected void clear() {
        moments.clear();
        prev = Double.NaN;
    }
}
