package com.wualabs.qtsurfer.engine.indicators.averages.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Kaufman adaptive moving average. With n = periods: efficiency ratio
 * {@code ER = |x_t - x_(t-n)| / sum(|x_i - x_(i-1)|, last n changes)} (0 when the sum is 0), smoothing
 * constant {@code sc = (ER * (2/(fast+1) - 2/(slow+1)) + 2/(slow+1))^2} and
 * {@code kama_t = kama_(t-1) + sc * (x_t - kama_(t-1))}, seeded with {@code kama = x_(t-1)} at the first
 * computable step. Ready after {@code n + 1} inputs. Defaults: fast 2, slow 30.
 */
public final class KamaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final double fastSc;
    private final double slowSc;
    private final DoubleRing prices;

    public KamaRTIndicator(int periods) {
        this(null, periods, 2, 30);
    }

    public KamaRTIndicator(int periods, int fast, int slow) {
        this(null, periods, fast, slow);
    }

    public KamaRTIndicator(RTIndicator source, int periods) {
        this(source, periods, 2, 30);
    }

    public KamaRTIndicator(RTIndicator source, int periods, int fast, int slow) {
        super(source);
        this.periods = checkPeriods(periods);
        this.fastSc = 2.0 / (checkPeriods(fast) + 1);
        this.slowSc = 2.0 / (checkPeriods(slow) + 1);
        this.prices = new DoubleRing(periods + 1);
    }

    @Override
    protected void accept(double x) {
        double prevKama = ready ? value : prices.newest();
        prices.push(x);
        if (!prices.full()) {
            return;
        }
        double change = Math.abs(x - prices.oldest());
        double vol = 0;
        for (int i = 1; i <= periods; i++) {
            vol += Math.abs(prices.get(i) - prices.get(i - 1));
        }
        double er = vol == 0 ? 0 : change / vol;
        double sc = er * (fastSc - slowSc) + slowSc;
        sc *= sc;
        value = prevKama + sc * (x - prevKama);
        ready = true;
    }

    @Override
    protected void clear() {
        prices.clear();
    }

    public int getPeriods() {
        return periods;
    }
}
