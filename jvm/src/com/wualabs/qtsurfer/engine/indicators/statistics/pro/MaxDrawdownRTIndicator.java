package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

/**
 * Maximum drawdown in percent, {@code max((peak - x) / peak * 100)} with peak the running maximum.
 * {@code ()}: over every input so far (ready from the first). {@code (periods)}: within the last
 * {@code periods} inputs, the peak running from the window's start (ready after {@code periods}).
 * Display hint PERCENT.
 */
public final class MaxDrawdownRTIndicator extends BaseRTIndicator {

    private final DoubleRing ring;
    private double peak = Double.NaN;
    private double maxDd;

    public MaxDrawdownRTIndicator() {
        this(null, 0);
    }

    public MaxDrawdownRTIndicator(int periods) {
        this(null, checkPeriods(periods));
    }

    public MaxDrawdownRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.ring = periods > 0 ? new DoubleRing(periods) : null;
        withDisplayHint(DisplayHint.PERCENT);
    }

    @Override
    protected void accept(double x) {
        if (ring == null) {
            if (!(x <= peak)) {
                peak = x;
            }
            if (peak > 0) {
                maxDd = Math.max(maxDd, (peak - x) / peak * 100.0);
            }
            value = maxDd;
            ready = true;
            return;
        }
        ring.push(x);
        if (ring.full()) {
            value = windowDrawdown(ring);
            ready = true;
        }
    }

    /** Max drawdown (fraction * 100) of a window, the peak running from its start. */
    static double windowDrawdown(DoubleRing r) {
        double pk = r.get(0);
        double dd = 0;
        for (int i = 0; i < r.size(); i++) {
            double v = r.get(i);
            if (v > pk) {
                pk = v;
            }
            if (pk > 0) {
                dd = Math.max(dd, (pk - v) / pk * 100.0);
            }
        }
        return dd;
    }

    @Override
    protected void clear() {
        if (ring != null) {
            ring.clear();
        }
        peak = Double.NaN;
        maxDd = 0;
    }
}
