package com.wualabs.qtsurfer.engine.indicators.averages.pro;

import com.wualabs.qtsurfer.engine.indicators.averages.WmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Hull moving average: {@code WMA(2 * WMA(x, n/2) - WMA(x, n), floor(sqrt(n)))} with {@code n/2} rounded
 * down (at least 1). Ready after {@code n + floor(sqrt(n)) - 1} inputs.
 */
public final class HmaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final WmaRTIndicator half;
    private final WmaRTIndicator full;
    private final WmaRTIndicator outer;

    public HmaRTIndicator(int periods) {
        this(null, periods);
    }

    public HmaRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        this.half = new WmaRTIndicator(Math.max(1, periods / 2));
        this.full = new WmaRTIndicator(periods);
        this.outer = new WmaRTIndicator(Math.max(1, (int) Math.floor(Math.sqrt(periods))));
    }

    @Override
    protected void accept(double x) {
        half.update(x);
        full.update(x);
        if (half.isReady() && full.isReady()) {
            outer.update(2 * half.getValue() - full.getValue());
            if (outer.isReady()) {
                value = outer.getValue();
                ready = true;
            }
        }
    }

    @Override
    protected void clear() {
        half.reset();
        full.reset();
        outer.reset();
    }

    public int getPeriods() {
        return periods;
    }
}
