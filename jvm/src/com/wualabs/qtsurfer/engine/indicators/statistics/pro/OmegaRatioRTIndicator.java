package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Omega ratio of the last {@code periods} simple returns against {@code threshold}:
 * {@code sum(max(r - t, 0)) / sum(max(t - r, 0))} (0 when nothing falls below the threshold).
 */
public final class OmegaRatioRTIndicator extends ReturnsRTIndicator {

    private final double threshold;

    public OmegaRatioRTIndicator(int periods) {
        this(null, periods, 0.0);
    }

    public OmegaRatioRTIndicator(int periods, double threshold) {
        this(null, periods, threshold);
    }

    public OmegaRatioRTIndicator(RTIndicator source, int periods) {
        this(source, periods, 0.0);
    }

    public OmegaRatioRTIndicator(RTIndicator source, int periods, double threshold) {
        super(source, periods);
        this.threshold = threshold;
    }

    @Override
    protected double compute() {
        double up = 0;
        double down = 0;
        for (int i = 0; i < returns.size(); i++) {
            double d = returns.get(i) - threshold;
            if (d > 0) {
                up += d;
            } else {
                down -= d;
            }
        }
        return down == 0 ? 0.0 : up / down;
    }
}
