package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Beta of an asset against a market over the last {@code periods} simple returns:
 * {@code cov(rAsset, rMarket) / var(rMarket)} (population; 0 when the market return has no variance).
 * Returns are {@code p_t / p_(t-1) - 1} of consecutive accepted pairs (a pair with a zero previous price
 * yields no return). Ready after {@code periods + 1} pairs.
 */
public final class BetaRTIndicator extends PairRTIndicator {

    private final DoubleRing ra;
    private final DoubleRing rm;
    private double prevA = Double.NaN;
    private double prevM = Double.NaN;

    /** Beta of the input against {@code market}. */
    public BetaRTIndicator(RTIndicator market, int periods) {
        this(null, market, periods);
    }

    /** Beta of {@code asset} against {@code market}. */
    public BetaRTIndicator(RTIndicator asset, RTIndicator market, int periods) {
        super(asset, market);
        ra = new DoubleRing(checkPeriods(periods));
        rm = new DoubleRing(periods);
    }

    @Override
    protected void acceptPair(double a, double m) {
        double pa = prevA;
        double pm = prevM;
        prevA = a;
        prevM = m;
        if (pa != pa || pa == 0 || pm == 0) {
            return;
        }
        ra.push(a / pa - 1);
        rm.push(m / pm - 1);
        if (ra.full()) {
            double var = WindowMoments.covariance(rm, rm);
            value = var <= 0 ? 0.0 : WindowMoments.covariance(ra, rm) / var;
            ready = true;
        }
    }

    @Override
    protected void clear() {
        ra.clear();
        rm.clear();
        prevA = Double.NaN;
        prevM = Double.NaN;
    }
}
