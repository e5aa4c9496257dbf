package com.wualabs.qtsurfer.engine.indicators.averages;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Linearly weighted moving average over the last {@code periods} inputs: the newest weighs
 * {@code periods}, the oldest 1, divided by {@code periods * (periods + 1) / 2}. Ready after
 * {@code periods} inputs.
 */
public final class WmaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final double denominator;
    private final DoubleRing ring;
    private double sum;
    private double weighted;

    public WmaRTIndicator(int periods) {
        this(null, periods);
    }

    public WmaRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        this.denominator = periods * (periods + 1) / 2.0;
        this.ring = new DoubleRing(periods);
    }

    @Override
    protected void accept(double x) {
        if (!ring.full()) {
            ring.push(x);
            sum += x;
            weighted += ring.size() * x;
            if (ring.full()) {
                value = weighted / denominator;
                ready = true;
            }
            return;
        }
        // newest weighs n: every older value loses one unit of weight (subtract the old sum).
        weighted += periods * x - sum;
        double old = ring.push(x);
        sum += x - old;
        if (ring.wrapped()) {
            double s = 0;
            double w = 0;
            for (int i = 0; i < periods; i++) {
                double v = ring.get(i);
                s += v;
                w += (i + 1) * v;
            }
            sum = s;
            weighted = w;
        }
        value = weighted / denominator;
    }

    @Override
    protected void clear() {
        ring.clear();
        sum = 0;
        weighted = 0;
    }

    public int getPeriods() {
        return periods;
    }
}
