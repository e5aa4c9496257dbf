package com.wualabs.qtsurfer.engine.indicators.momentum.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.RsiRTIndicator;

/**
 * Stochastic RSI: {@code 100 * (rsi - min) / (max - min)} over the last {@code stochPeriods} values of a
 * Wilder RSI of {@code rsiPeriods} (50 when max == min). Ready after {@code rsiPeriods + stochPeriods}
 * inputs. {@code (int periods)} uses the same length for both.
 */
public final class StochasticRsiRTIndicator extends BaseRTIndicator {

    private final RsiRTIndicator rsi;
    private final DoubleRing window;

    public StochasticRsiRTIndicator(int periods) {
        this(null, periods, periods);
    }

    public StochasticRsiRTIndicator(int rsiPeriods, int stochPeriods) {
        this(null, rsiPeriods, stochPeriods);
    }

    public StochasticRsiRTIndicator(RTIndicator source, int periods) {
        this(source, periods, periods);
    }

    public StochasticRsiRTIndicator(RTIndicator source, int rsiPeriods, int stochPeriods) {
        super(source);
        this.rsi = new RsiRTIndicator(checkPeriods(rsiPeriods), false);
        this.window = new DoubleRing(checkPeriods(stochPeriods));
    }

    @Override
    protected void accept(double x) {
        rsi.update(x);
        if (!rsi.isReady()) {
            return;
        }
        double r = rsi.getValue();
        window.push(r);
        if (window.full()) {
            double max = window.max();
            double min = window.min();
            value = max == min ? 50.0 : 100.0 * (r - min) / (max - min);
            ready = true;
        }
    }

    @Override
    protected void clear() {
        rsi.reset();
        window.clear();
    }
}
