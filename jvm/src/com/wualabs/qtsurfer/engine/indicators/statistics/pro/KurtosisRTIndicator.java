package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Population excess kurtosis {@code m4 / m2^2 - 3} of the last {@code periods} inputs (0 when m2 is 0).
 * Ready after {@code periods} inputs.
 */
public final class KurtosisRTIndicator extends BaseRTIndicator {

    private final DoubleRing ring;

    public KurtosisRTIndicator(int periods) {
        this(null, periods);
    }

    public KurtosisRTIndicator(RTIndicator source, int periods) {
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
        double m4 = WindowMoments.central(ring, m, 4);
        value = m2 == 0 ? 0.0 : m4 / (m2 * m2) - 3.0;
        ready = true;
    }

    @Override
    protected void clear() {
        ring.clear();
    }
}
