package com.wualabs.qtsurfer.engine.indicators.distance;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

/**
 * Change between consecutive inputs: absolute {@code x_t - x_(t-1)}, or with {@code percent = true}
 * {@code (x_t - x_(t-1)) / x_(t-1) * 100} (NaN when the previous input is 0). Ready from the second input.
 */
public class RateChangeRTIndicator extends BaseRTIndicator {

    private final boolean percent;
    private double prev = Double.NaN;

    public RateChangeRTIndicator() {
        this(null, false);
    }

    public RateChangeRTIndicator(boolean percent) {
        this(null, percent);
    }

    public RateChangeRTIndicator(RTIndicator source, boolean percent) {
        super(source);
        this.percent = percent;
        if (percent) {
            withDisplayHint(DisplayHint.PERCENT);
        }
    }

    @Override
    protected final void accept(double x) {
        double p = prev;
        prev = x;
        if (p != p) {
            return;
        }
        value = percent ? (p == 0 ? Double.NaN : (x - p) / p * 100.0) : x - p;
        ready = true;
    }

    @Override
    protected final void clear() {
        prev = Double.NaN;
    }

    public boolean isPercent() {
        return percent;
    }
}
