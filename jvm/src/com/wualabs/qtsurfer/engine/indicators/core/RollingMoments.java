package com.wualabs.qtsurfer.engine.indicators.core;

/**
 * Sliding-window mean and sum of squared deviations (engine helper). Updated in O(1) with the
 * add/replace form of Welford's algorithm and re-summed exactly (two passes) each time the window
 * turns over, so rounding drift cannot accumulate over long runs.
 */
public final class RollingMoments {

    private final DoubleRing ring;
    private final int n;
    private double mean;
    private double m2;

    public RollingMoments(int periods) {
        this.n = periods;
        this.ring = new DoubleRing(periods);
    }

    public void push(double x) {
        if (!ring.full()) {
            ring.push(x);
            int c = ring.size();
            double d = x - mean;
            mean += d / c;
            m2 += d * (x - mean);
        } else {
            double old = ring.push(x);
            double newMean = mean + (x - old) / n;
            m2 += (x - old) * (x - newMean + old - mean);
            mean = newMean;
            if (ring.wrapped()) {
                resum();
            }
        }
        if (m2 < 0) {
            m2 = 0;
        }
    }

    private void resum() {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += ring.get(i);
        }
        double m = s / n;
        double q = 0;
        for (int i = 0; i < n; i++) {
            double d = ring.get(i) - m;
            q += d * d;
        }
        mean = m;
        m2 = q;
    }

    public boolean full() {
        return ring.full();
    }

    public int size() {
        return ring.size();
    }

    public double mean() {
        return mean;
    }

    /** Population variance (divides by the window size). */
    public double variance() {
        int c = ring.size();
        return c == 0 ? Double.NaN : m2 / c;
    }

    /** Sample variance (divides by size - 1). */
    public double sampleVariance() {
        int c = ring.size();
        return c < 2 ? Double.NaN : m2 / (c - 1);
    }

    public DoubleRing ring() {
        return ring;
    }

    public void clear() {
        ring.clear();
        mean = 0;
        m2 = 0;
    }
}
