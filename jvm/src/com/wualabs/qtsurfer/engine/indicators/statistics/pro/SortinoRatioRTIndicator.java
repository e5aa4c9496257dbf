package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Per-period Sortino ratio of the last {@code periods} simple returns:
 * {@code (mean(r) - target) / sqrt(mean(min(r - target, 0)^2))} (0 when there is no downside).
 */
public final class SortinoRatioRTIndicator extends ReturnsRTIndicator {

    private final double target;

    public SortinoRatioRTIndicator(int periods) {
        this(null, periods, 0.0);
    }

    public SortinoRatioRTIndicator(int periods, double target) {
        this(null, periods, target);
    }

    public SortinoRatioRTIndicator(RTIndicator source, int periods) {
        this(source, periods, 0.0);
    }

    public SortinoRatioRTIndicator(RTIndicator source, int periods, double target) {
        super(source, periods);
        this.target = target;
    }

    @Override
    protected double compute() {
        int n = returns.size();
        double sum = 0;
        double down = 0;
        for (int i = 0; i < n; i++) {
            double r = returns.get(i) - target;
            sum += r;
            if (r < 0) {
                down += r * r;
            }
        }
        double dd = Math.sqrt(down / n);
        return dd == 0 ? 0.0 : (sum / n) / dd;
    }
}
