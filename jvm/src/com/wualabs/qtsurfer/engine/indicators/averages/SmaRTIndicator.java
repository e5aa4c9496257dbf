package com.wualabs.qtsurfer.engine.indicators.averages;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Simple moving average: the mean of the last {@code periods} inputs.
 *
 * <p>Discrete mode (the default): ready after {@code periods} inputs, NaN before.
 * Continuous mode: ready from the first input; until the window is full the value is the mean of all
 * inputs so far (an expanding mean), then the sliding mean.
 *
 * <p>The running sum is re-added from the window's inputs, oldest first, each time the window has turned
 * over once, so that its rounding errors do not accumulate.
 */
public final class SmaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final boolean discrete;
    /** The last {@code periods} inputs, a ring: {@code window[head]} is the next to write (the oldest, once full). */
    private final double[] window;
    private int head;
    private int size;
    private double sum;

    public SmaRTIndicator(int periods) {
        this(null, periods, true);
    }

    public SmaRTIndicator(int periods, boolean discrete) {
        this(null, periods, discrete);
    }

    public SmaRTIndicator(RTIndicator source, int periods) {
        this(source, periods, true);
    }

    public SmaRTIndicator(RTIndicator source, int periods, boolean discrete) {
        super(source);
        this.periods = checkPeriods(periods);
        this.discrete = discrete;
        this.window = new double[this.periods];
    }

    @Override
    protected void accept(double x) {
        double old = Double.NaN;
        if (size == periods) {
            old = window[head];
        } else {
            size++;
        }
        window[head] = x;
        if (++head == periods) {
            head = 0;
        }
        if (old == old) {
            sum += x - old;
            if (head == 0) { // full, and turned over once more
                sum = sumOf(window, periods);
            }
        } else {
            sum += x;
        }
        if (size == periods) {
            value = sum / periods;
            ready = true;
        } else if (!discrete) {
            value = sum / size;
            ready = true;
        }
    }

    /**
     * Engine-internal: for each of {@code in[0 .. len)} in turn, {@code v = x == x ? update(x) : v}, with
     * {@code v} written to {@code out[at + k]} after each one (when {@code out} is not null); returns the last
     * {@code v}. What a series computed ahead does with a column ({@code RunSeries}).
     *
     * <p>Why: through {@link #update} every input loaded and stored the ring's position, its size, the sum and
     * the value as fields, each the next input's dependency: about 3.6 ms for a million inputs in a sweep's
     * host, for each new SMA length. Here they are locals, written back at the end: {@link #accept}'s
     * operations on the same values in the same order, so the same bits (an SMA with a source steps through
     * {@link #update}).
     */
    public double updateAll(double[] in, int len, double[] out, int at, double v) {
        if (source != null) {
            return updateEach(in, len, out, at, v);
        }
        final int p = periods;
        final double[] w = window;
        int h = head;
        int n = size;
        double s = sum;
        double val = value;
        boolean on = ready;
        for (int k = 0; k < len; k++) {
            double x = in[k];
            if (x == x) {
                if (n == p) {
                    double old = w[h];
                    w[h] = x;
                    if (++h == p) {
                        h = 0;
                    }
                    s += x - old;
                    if (h == 0) {
                        s = sumOf(w, p);
                    }
                    val = s / p;
                    on = true;
                } else {
                    n++;
                    w[h] = x;
                    if (++h == p) {
                        h = 0;
                    }
                    s += x;
                    if (n == p) {
                        val = s / p;
                        on = true;
                    } else if (!discrete) {
                        val = s / n;
                        on = true;
                    }
                }
                v = val;
            }
            if (out != null) {
                out[at + k] = v;
            }
        }
        head = h;
        size = n;
        sum = s;
        value = val;
        ready = on;
        return v;
    }

    /** {@code w[0] + ... + w[n-1]}, added in that order from 0 (the window oldest first, once it turned over). */
    private static double sumOf(double[] w, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += w[i];
        }
        return s;
    }

    @Override
    protected void clear() {
        head = 0;
        size = 0;
        sum = 0;
    }

    public int getPeriods() {
        return periods;
    }

    public boolean isDiscrete() {
        return discrete;
    }
}
