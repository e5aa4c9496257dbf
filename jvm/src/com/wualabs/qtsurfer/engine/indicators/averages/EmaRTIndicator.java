package com.wualabs.qtsurfer.engine.indicators.averages;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Exponential moving average with {@code alpha = 2 / (periods + 1)}, seeded with the simple mean of the
 * first {@code periods} inputs: NaN before that, then {@code ema += alpha * (x - ema)}. Ready after
 * {@code periods} inputs.
 */
public final class EmaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final double alpha;
    private int count;
    private double seedSum;

    public EmaRTIndicator(int periods) {
        this(null, periods);
    }

    public EmaRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        this.alpha = 2.0 / (periods + 1);
    }

    @Override
    protected void accept(double x) {
        if (ready) {
            value += alpha * (x - value);
            return;
        }
        seedSum += x;
        if (++count == periods) {
            value = seedSum / periods;
            ready = true;
        }
    }

    /**
     * Engine-internal: for each of {@code in[0 .. len)} in turn, {@code v = x == x ? update(x) : v}, with
     * {@code v} written to {@code out[at + k]} after each one (when {@code out} is not null); returns the last
     * {@code v}. What a series computed ahead does with a column ({@code RunSeries}), as
     * {@link SmaRTIndicator#updateAll}: {@link #accept}'s operations in the same order with the state in
     * locals (through {@link #update} the value was stored and loaded again as a field between two inputs,
     * in the chain every input depends on), written back at the end; the same bits.
     */
    public double updateAll(double[] in, int len, double[] out, int at, double v) {
        if (source != null) {
            return updateEach(in, len, out, at, v);
        }
        final double a = alpha;
        double val = value;
        boolean on = ready;
        int n = count;
        double seed = seedSum;
        for (int k = 0; k < len; k++) {
            double x = in[k];
            if (x == x) {
                if (on) {
                    val += a * (x - val);
                } else {
                    seed += x;
                    if (++n == periods) {
                        val = seed / periods;
                        on = true;
                    }
                }
                v = val;
            }
            if (out != null) {
                out[at + k] = v;
            }
        }
        value = val;
        ready = on;
        count = n;
        seedSum = seed;
        return v;
    }

    @Override
    protected void clear() {
        count = 0;
        seedSum = 0;
    }

    public int getPeriods() {
        return periods;
    }

    public double getAlpha() {
        return alpha;
    }
}
