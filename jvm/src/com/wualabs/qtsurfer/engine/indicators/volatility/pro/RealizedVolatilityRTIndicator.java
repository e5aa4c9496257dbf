package com.wualabs.qtsurfer.engine.indicators.volatility.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Realized volatility: {@code sqrt(sum(r^2))} of the last {@code periods} log returns
 * {@code ln(x_t / x_(t-1))} (non-positive values yield no return). Not annualised. Ready after
 * {@code periods + 1} inputs.
 */
public final class RealizedVolatilityRTIndicator extends BaseRTIndicator {

    private final DoubleRing squares;
    private double prev = Double.NaN;

    public RealizedVolatilityRTIndicator(int periods) {
        this(null, periods);
    }

    public RealizedVolatilityRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.squares = new DoubleRing(checkPeriods(periods));
    }

    @Override
    protected void accept(double x) {
        double p = prev;
        prev = x;
        if (!(p > 0) || !(x > 0)) {
            return;
        }
        double r = Math.log(x / p);
        squares.push(r * r);
        if (squares.full()) {
            value = Math.sqrt(squares.sum());
            ready = true;
        }
    }

    @Override
    protected void clear() {
        squares.clear();
        prev = Double.NaN;
    }
}
