package com.wualabs.qtsurfer.engine.indicators.volatility.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Garman-Klass volatility over the last {@code periods} bars:
 * {@code sqrt(max(0, mean(0.5 * ln(H/L)^2 - (2 ln 2 - 1) * ln(C/O)^2)))} (bars with non-positive prices
 * are skipped). Not annualised. Ready after {@code periods} bars.
 */
public final class GarmanKlassRTIndicator extends BaseBarRTIndicator {

    private static final double K = 2 * Math.log(2) - 1;
    private final DoubleRing terms;

    public GarmanKlassRTIndicator(int periods) {
        this(null, periods);
    }

    public GarmanKlassRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.terms = new DoubleRing(checkPeriods(periods));
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        if (!(low > 0) || !(high > 0) || !(open > 0) || !(close > 0)) {
            return;
        }
        double hl = Math.log(high / low);
        double co = Math.log(close / open);
        terms.push(0.5 * hl * hl - K * co * co);
        if (terms.full()) {
            value = Math.sqrt(Math.max(0, terms.sum() / terms.size()));
            ready = true;
        }
    }

    @Override
    protected void clear() {
        terms.clear();
    }
}
