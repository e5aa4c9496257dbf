package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Population skewness {@code m3 / m2^1.5} of the last {@code periods} inputs (0 when m2 is 0). Ready after
 * {@code periods} inputs.
 */
public final class SkewnessRTIndicator extends BaseRTIndicator {

    private final DoubleRing ring;

    public SkewnessRTIndicator(int periods) {
        this(null, periods);
    }

    public SkewnessRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.ring = new DoubleRing(checkPeriods(periods));
    }

    @Override
    protected void accept(double x) {
        ring.push(x);
        if (!ring.full()) {
            return;
        }
        double m = WindowMoments.mean(ring);
        double m2 = WindowMoments.central(ring, m, 2);
        double m3 = WindowMoments.central(ring, m, 3);
        value = m2 == 0 ? 0.0 : m3 / Math.pow(m2, 1.5);
        ready = true;
    }

    @Override
    protected void clear() {
        ring.clear();
    }
}
