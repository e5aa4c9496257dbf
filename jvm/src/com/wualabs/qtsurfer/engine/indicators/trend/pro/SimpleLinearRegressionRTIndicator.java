package com.wualabs.qtsurfer.engine.indicators.trend.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Least-squares line through the last {@code periods} inputs against their index (0 = oldest). The value
 * is the fitted value at the newest point, {@code intercept + slope * (periods - 1)}; {@link #getSlope()},
 * {@link #getIntercept()} and {@link #getRSquared()} expose the fit (R^2 is 1 for a flat window).
 * Ready after {@code periods} inputs.
 */
public final class SimpleLinearRegressionRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final DoubleRing ring;
    private double slope = Double.NaN;
    private double intercept = Double.NaN;
    private double rSquared = Double.NaN;

    public SimpleLinearRegressionRTIndicator(int periods) {
        this(null, periods);
    }

    public SimpleLinearRegressionRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        this.ring = new DoubleRing(periods);
    }

    @Override
    protected void accept(double y) {
        ring.push(y);
        if (!ring.full()) {
            return;
        }
        int n = periods;
        double sx = 0;
        double sy = 0;
        for (int i = 0; i < n; i++) {
            sx += i;
            sy += ring.get(i);
        }
        double mx = sx / n;
        double my = sy / n;
        double sxx = 0;
        double sxy = 0;
        double syy = 0;
        for (int i = 0; i < n; i++) {
            double dx = i - mx;
            double dy = ring.get(i) - my;
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
        slope = sxx == 0 ? 0.0 : sxy / sxx;
        intercept = my - slope * mx;
        rSquared = syy == 0 ? 1.0 : (sxy * sxy) / (sxx * syy);
        value = intercept + slope * (n - 1);
        ready = true;
    }

    public double getSlope() {
        return slope;
    }

    public double getIntercept() {
        return intercept;
    }

    public double getRSquared() {
        return rSquared;
    }

    @Override
    protected void clear() {
        ring.clear();
        slope = Double.NaN;
        intercept = Double.NaN;
        rSquared = Double.NaN;
    }
}
