package com.wualabs.qtsurfer.engine.indicators.volatility.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Parkinson range volatility over the last {@code periods} bars:
 * {@code sqrt(sum(ln(high / low)^2) / (4 * n * ln 2))} (bars with a non-positive low are skipped).
 * Not annualised. Ready after {@code periods} bars.
 */
public final class ParkinsonRTIndicator extends BaseBarRTIndicator {

    private final DoubleRing terms;

    public ParkinsonRTIndicator(int periods) {
        this(null, periods);
    }

    public ParkinsonRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.terms = new DoubleRing(checkPeriods(periods));
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        if (!(low > 0) || !(high > 0)) {
            return;
        }
        double hl = Math.log(high / low);
        terms.push(hl * hl);
        if (terms.full()) {
            value = Math.sqrt(terms.sum() / (4.0 * terms.size() * Math.log(2)));
            ready = true;
        }
    }

    @Override
    protected void clear() {
        terms.clear();
    }
}
