package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Pearson correlation of the last {@code periods} pairs (see the constructors); 0 when either side has
 * no variance. Ready after {@code periods} pairs.
 */
public final class CorrelationRTIndicator extends PairRTIndicator {

    private final DoubleRing xs;
    private final DoubleRing ys;

    /** Correlation between the input and {@code other}. */
    public CorrelationRTIndicator(RTIndicator other, int periods) {
        this(null, other, periods);
    }

    /** Correlation between {@code a} and {@code b}. */
    public CorrelationRTIndicator(RTIndicator a, RTIndicator b, int periods) {
        super(a, b);
        xs = new DoubleRing(checkPeriods(periods));
        ys = new DoubleRing(periods);
    }

    @Override
    protected void acceptPair(double a, double b) {
        xs.push(a);
        ys.push(b);
        if (!xs.full()) {
            return;
        }
        double cov = WindowMoments.covariance(xs, ys);
        double vx = WindowMoments.covariance(xs, xs);
        double vy = WindowMoments.covariance(ys, ys);
        value = vx <= 0 || vy <= 0 ? 0.0 : cov / Math.sqrt(vx * vy);
        ready = true;
    }

    @Override
    protected void clear() {
        xs.clear();
        ys.clear();
    }
}
