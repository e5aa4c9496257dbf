package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Population covariance of the last {@code periods} pairs (see the constructors). Ready after
 * {@code periods} pairs.
 */
public final class CovarianceRTIndicator extends PairRTIndicator {

    private final DoubleRing xs;
    private final DoubleRing ys;

    /** Covariance between the input and {@code other}. */
    public CovarianceRTIndicator(RTIndicator other, int periods) {
        this(null, other, periods);
    }

    /** Covariance between {@code a} and {@code b}. */
    public CovarianceRTIndicator(RTIndicator a, RTIndicator b, int periods) {
        super(a, b);
        xs = new DoubleRing(checkPeriods(periods));
        ys = new DoubleRing(periods);
    }

    @Override
    protected void acceptPair(double a, double b) {
        xs.push(a);
        ys.push(b);
        if (xs.full()) {
            value = WindowMoments.covariance(xs, ys);
            ready = true;
        }
    }

    @Override
    protected void clear() {
        xs.clear();
        ys.clear();
    }
}
