package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Ulcer index of the last {@code periods} inputs: {@code sqrt(mean(D_i^2))} with
 * {@code D_i = 100 * (x_i - peak_i) / peak_i} and peak_i the running maximum from the window's start.
 * Ready after {@code periods} inputs. Default 14.
 */
public final class UlcerIndexRTIndicator extends BaseRTIndicator {

    private final DoubleRing ring;

    public UlcerIndexRTIndicator() {
        this(null, 14);
    }

    public UlcerIndexRTIndicator(int periods) {
        this(null, periods);
    }

    public UlcerIndexRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.ring = new DoubleRing(checkPeriods(periods));
    }

    @Override
    protected void accept(double x) {
        ring.push(x);
        if (!ring.full()) {
            return;
        }
        double pk = ring.get(0);
        double s = 0;
        for (int i = 0; i < ring.size(); i++) {
            double v = ring.get(i);
            if (v > pk) {
                pk = v;
            }
            double d = pk == 0 ? 0 : 100.0 * (v - pk) / pk;
            s += d * d;
        }
        value = Math.sqrt(s / ring.size());
        ready = true;
    }

    @Override
    protected void clear() {
        ring.clear();
    }
}
