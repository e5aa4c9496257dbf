package com.wualabs.qtsurfer.engine.indicators.momentum.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Stochastic oscillator on bars. {@code %K = 100 * (close - LL) / (HH - LL)} with HH / LL the highest high
 * / lowest low of the last {@code kPeriods} bars (50 when HH == LL); {@code %D} is the simple mean of the
 * last {@code dPeriods} %K values. The value is %K, ready after {@code kPeriods} bars; {@link #getD()} is
 * NaN until {@code kPeriods + dPeriods - 1} bars. Defaults 14 / 3.
 */
public final class StochasticOscillatorRTIndicator extends BaseBarRTIndicator {

    private final DoubleRing highs;
    private final DoubleRing lows;
    private final DoubleRing ks;
    private double d = Double.NaN;

    public StochasticOscillatorRTIndicator() {
        this(null, 14, 3);
    }

    public StochasticOscillatorRTIndicator(int kPeriods) {
        this(null, kPeriods, 3);
    }

    public StochasticOscillatorRTIndicator(int kPeriods, int dPeriods) {
        this(null, kPeriods, dPeriods);
    }

    public StochasticOscillatorRTIndicator(RTIndicator source, int kPeriods) {
        this(source, kPeriods, 3);
    }

    public StochasticOscillatorRTIndicator(RTIndicator source, int kPeriods, int dPeriods) {
        super(source);
        highs = new DoubleRing(checkPeriods(kPeriods));
        lows = new DoubleRing(kPeriods);
        ks = new DoubleRing(checkPeriods(dPeriods));
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        highs.push(high);
        lows.push(low);
        if (!highs.full()) {
            return;
        }
        double hh = highs.max();
        double ll = lows.min();
        value = hh == ll ? 50.0 : 100.0 * (close - ll) / (hh - ll);
        ready = true;
        ks.push(value);
        if (ks.full()) {
            d = ks.sum() / ks.capacity();
        }
    }

    /** %D, the simple mean of the last dPeriods %K values (NaN until available). */
    public double getD() {
        return d;
    }

    /** %K (same as getValue()). */
    public double getK() {
        return value;
    }

    @Override
    protected void clear() {
        highs.clear();
        lows.clear();
        ks.clear();
        d = Double.NaN;
    }
}
