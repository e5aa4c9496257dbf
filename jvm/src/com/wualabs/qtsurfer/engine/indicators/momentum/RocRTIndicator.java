package com.wualabs.qtsurfer.engine.indicators.momentum;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

/**
 * Rate of change in percent: {@code 100 * (x_t - x_(t-n)) / x_(t-n)}; NaN when {@code x_(t-n)} is 0.
 * Ready after {@code periods + 1} inputs.
 */
public final class RocRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final DoubleRing ring;

    public RocRTIndicator(int periods) {
        this(null, periods);
    }

    public RocRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        this.ring = new DoubleRing(periods + 1);
        withDisplayHint(DisplayHint.PERCENT);
    }

    @Override
    protected void accept(double x) {
        ring.push(x);
        if (ring.full()) {
            double base = ring.oldest();
            value = base == 0 ? Double.NaN : 100.0 * (x - base) / base;
            ready = true;
        }
    }

    @Override
    protected void clear() {
        ring.clear();
    }

    public int getPeriods() {
        return periods;
    }
}
