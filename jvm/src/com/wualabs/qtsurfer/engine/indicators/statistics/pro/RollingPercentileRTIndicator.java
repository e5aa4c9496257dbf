package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

import java.util.Arrays;

/**
 * The {@code percentile} (0..100) of the last {@code periods} inputs, by linear interpolation between the
 * sorted values at rank {@code p / 100 * (n - 1)} (numpy's default). Ready after {@code periods} inputs.
 * Default percentile 50 (the rolling median).
 */
public final class RollingPercentileRTIndicator extends BaseRTIndicator {

    private final DoubleRing ring;
    private final double[] sorted;
    private final double percentile;
    private int count;

    public RollingPercentileRTIndicator(int periods) {
        this(null, periods, 50.0);
    }

    public RollingPercentileRTIndicator(int periods, double percentile) {
        this(null, periods, percentile);
    }

    public RollingPercentileRTIndicator(RTIndicator source, int periods, double percentile) {
        super(source);
        if (!(percentile >= 0 && percentile <= 100)) {
            throw new IllegalArgumentException("percentile must be within [0, 100], got " + percentile);
        }
        this.ring = new DoubleRing(checkPeriods(periods));
        this.sorted = new double[periods];
        this.percentile = percentile;
    }

    @Override
    protected void accept(double x) {
        double old = ring.push(x);
        if (old == old) {
            int i = Arrays.binarySearch(sorted, 0, count, old);
            System.arraycopy(sorted, i + 1, sorted, i, count - i - 1);
            count--;
        }
        int pos = Arrays.binarySearch(sorted, 0, count, x);
        if (pos < 0) {
            pos = -pos - 1;
        }
        System.arraycopy(sorted, pos, sorted, pos + 1, count - pos);
        sorted[pos] = x;
        count++;
        if (ring.full()) {
            double rank = percentile / 100.0 * (count - 1);
            int lo = (int) Math.floor(rank);
            int hi = Math.min(lo + 1, count - 1);
            value = sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
            ready = true;
        }
    }

    @Override
    protected void clear() {
        ring.clear();
        count = 0;
    }
}
