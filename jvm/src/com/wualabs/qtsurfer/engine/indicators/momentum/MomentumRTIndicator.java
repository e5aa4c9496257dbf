package com.wualabs.qtsurfer.engine.indicators.momentum;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/** Momentum: {@code x_t - x_(t-periods)}. Ready after {@code periods + 1} inputs. */
public final class MomentumRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final DoubleRing ring;

    public MomentumRTIndicator(int periods) {
        this(null, periods);
    }

    public MomentumRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        this.ring = new DoubleRing(periods + 1);
    }

    @Override
    protected void accept(double x) {
        ring.push(x);
        if (ring.full()) {
            value = x - ring.oldest();
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
