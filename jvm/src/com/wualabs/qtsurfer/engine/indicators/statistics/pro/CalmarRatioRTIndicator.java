package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Calmar-style ratio over the last {@code periods + 1} inputs: the window's total return in percent,
 * {@code (x_t / x_(t-n) - 1) * 100}, divided by its maximum drawdown in percent (see
 * {@link MaxDrawdownRTIndicator}); 0 when there is no drawdown. Not annualised. Ready after
 * {@code periods + 1} inputs.
 */
public final class CalmarRatioRTIndicator extends BaseRTIndicator {

    private final DoubleRing ring;

    public CalmarRatioRTIndicator(int periods) {
        this(null, periods);
    }

    public CalmarRatioRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.ring = new DoubleRing(checkPeriods(periods) + 1);
    }

    @Override
    protected void accept(double x) {
        ring.push(x);
        if (!ring.full()) {
            return;
        }
        double first = ring.oldest();
        double dd = MaxDrawdownRTIndicator.windowDrawdown(ring);
        double ret = first == 0 ? Double.NaN : (x / first - 1) * 100.0;
        value = dd == 0 ? 0.0 : ret / dd;
        ready = true;
    }

    @Override
    protected void clear() {
        ring.clear();
    }
}
