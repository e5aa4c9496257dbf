package com.wualabs.qtsurfer.engine.indicators.bollinger;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RollingMoments;

/**
 * Bollinger bands over the last {@code periods} inputs: middle = simple mean, {@code upper/lower =
 * middle +/- k * sigma} with sigma the <em>population</em> standard deviation of the same window. The
 * value is the middle band. Ready after {@code periods} inputs.
 */
public final class BollingerRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final double k;
    private final RollingMoments moments;
    private double upper = Double.NaN;
    private double lower = Double.NaN;
    private double sigma = Double.NaN;

    public BollingerRTIndicator(int periods, double k) {
        this(null, periods, k);
    }

    public BollingerRTIndicator(RTIndicator source, int periods, double k) {
        super(source);
        this.periods = checkPeriods(periods);
        this.k = k;
        this.moments = new RollingMoments(periods);
    }

    @Override
    protected void accept(double x) {
        moments.push(x);
        if (!moments.full()) {
            return;
        }
        double mid = moments.mean();
        sigma = Math.sqrt(moments.variance());
        value = mid;
        upper = mid + k * sigma;
        lower = mid - k * sigma;
        ready = true;
    }

    public double getMiddle() {
        return value;
    }

    public double getUpper() {
        return upper;
    }

    public double getLower() {
        return lower;
    }

    /** The population standard deviation of the window. */
    public double getStdDev() {
        return sigma;
    }

    /** {@code (upper - lower) / middle * 100} (NaN when the middle is 0). */
    public double getBandwidth() {
        return value == 0 ? Double.NaN : (upper - lower) / value * 100.0;
    }

    /** {@code (x - lower) / (upper - lower)}, 0.5 when the band has no width. */
    public double getPercentB(double x) {
        double w = upper - lower;
        return w == 0 ? 0.5 : (x - lower) / w;
    }

    public int getPeriods() {
        return periods;
    }

    public double getK() {
        return k;
    }

    @Override
    protected void clear() {
        moments.clear();
        upper = Double.NaN;
        lower = Double.NaN;
        sigma = Double.NaN;
    }
}
