package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Per-period Sharpe ratio of the last {@code periods} simple returns:
 * {@code (mean(r) - riskFree) / sampleStd(r)} (not annualised; 0 when the deviation is 0).
 */
public final class SharpeRatioRTIndicator extends ReturnsRTIndicator {

    private final double riskFree;

    public SharpeRatioRTIndicator(int periods) {
        this(null, periods, 0.0);
    }

    public SharpeRatioRTIndicator(int periods, double riskFreePerPeriod) {
        this(null, periods, riskFreePerPeriod);
    }

    public SharpeRatioRTIndicator(RTIndicator source, int periods) {
        this(source, periods, 0.0);
    }

    public SharpeRatioRTIndicator(RTIndicator source, int periods, double riskFreePerPeriod) {
        super(source, periods);
        if (periods < 2) {
            throw new IllegalArgumentException("a Sharpe ratio needs periods >= 2");
        }
        this.riskFree = riskFreePerPeriod;
    }

    @Override
    protected double compute() {
        int n = returns.size();
        double m = WindowMoments.mean(returns);
        double var = WindowMoments.central(returns, m, 2) * n / (n - 1);
        double sd = Math.sqrt(var);
        return sd == 0 ? 0.0 : (m - riskFree) / sd;
    }
}
