package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Market activity in percent: the simple mean, over the last {@code smaPeriods} updates, of
 * {@code 100 if the input changed from the previous update, else 0} (so 50 means half the updates moved
 * the price). Ready after {@code smaPeriods + 1} inputs. {@link #clampUpdates(int)} makes the first
 * {@code n} updates report 0 (and not ready) while the average warms up. Display hint PERCENT.
 */
public class VolatilityRTIndicator extends BaseRTIndicator {

    private final DoubleRing changes;
    private double prev = Double.NaN;
    private double sum;
    private int clamp;
    private long updates;

    public VolatilityRTIndicator(int smaPeriods) {
        this(null, smaPeriods);
    }

    public VolatilityRTIndicator(RTIndicator source, int smaPeriods) {
        super(source);
        this.changes = new DoubleRing(checkPeriods(smaPeriods));
        withDisplayHint(DisplayHint.PERCENT);
    }

    /** The first {@code n} updates report 0 (not ready). Returns this indicator. */
    public VolatilityRTIndicator clampUpdates(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("clampUpdates needs n >= 0, got " + n);
        }
        this.clamp = n;
        return this;
    }

    @Override
    protected final void accept(double x) {
        updates++;
        double p = prev;
        prev = x;
        if (p == p) {
            double c = x != p ? 100.0 : 0.0;
            double old = changes.push(c);
            sum += old == old ? c - old : c;
            if (changes.wrapped()) {
                sum = changes.sum();
            }
        }
        if (updates <= clamp) {
            value = 0;
            ready = false;
        } else if (changes.full()) {
            value = sum / changes.capacity();
            ready = true;
        }
    }

    @Override
    protected final void clear() {
        changes.clear();
        prev = Double.NaN;
        sum = 0;
        updates = 0;
    }
}
