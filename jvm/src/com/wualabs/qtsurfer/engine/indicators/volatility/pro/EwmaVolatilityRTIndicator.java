package com.wualabs.qtsurfer.engine.indicators.volatility.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * EWMA (RiskMetrics) volatility of log returns: {@code var = r1^2} for the first return, then
 * {@code var = lambda * var + (1 - lambda) * r^2}; the value is {@code sqrt(var)}. {@code (double lambda)}
 * is ready after the first return; {@code (int periods)} uses {@code lambda = 1 - 2 / (periods + 1)} and is
 * ready after {@code periods} returns. Default lambda 0.94.
 */
public final class EwmaVolatilityRTIndicator extends BaseRTIndicator {

    private final double lambda;
    private final int warmup;
    private double prev = Double.NaN;
    private double var = Double.NaN;
    private int returns;

    public EwmaVolatilityRTIndicator() {
        this(null, 0.94);
    }

    public EwmaVolatilityRTIndicator(double lambda) {
        this(null, lambda);
    }

    public EwmaVolatilityRTIndicator(int periods) {
        this(null, periods);
    }

    public EwmaVolatilityRTIndicator(RTIndicator source, double lambda) {
        super(source);
        if (!(lambda >= 0 && lambda < 1)) {
            throw new IllegalArgumentException("lambda must be within [0, 1), got " + lambda);
        }
        this.lambda = lambda;
        this.warmup = 1;
    }

    public EwmaVolatilityRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.lambda = 1.0 - 2.0 / (checkPeriods(periods) + 1);
        this.warmup = periods;
    }

    @Override
    protected void accept(double x) {
        double p = prev;
        prev = x;
        if (!(p > 0) || !(x > 0)) {
            return;
        }
        double r = Math.log(x / p);
        var = returns == 0 ? r * r : lambda * var + (1 - lambda) * r * r;
        if (++returns >= warmup) {
            value = Math.sqrt(var);
            ready = true;
        }
    }

    public double getLambda() {
        return lambda;
    }

    @Override
    protected void clear() {
        prev = Double.NaN;
        var = Double.NaN;
        returns = 0;
    }
}
