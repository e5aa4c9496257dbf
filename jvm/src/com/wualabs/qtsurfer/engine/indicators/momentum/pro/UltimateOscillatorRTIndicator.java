package com.wualabs.qtsurfer.engine.indicators.momentum.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Ultimate oscillator on bars. From the second bar: buying pressure {@code BP = close - min(low, prevClose)},
 * true range {@code TR = max(high, prevClose) - min(low, prevClose)}; {@code avgN = sum(BP) / sum(TR)} over
 * the last N values (0 when the TR sum is 0); {@code UO = 100 * (4*avg1 + 2*avg2 + avg3) / 7}.
 * Ready after {@code max(p1, p2, p3) + 1} bars. Defaults 7 / 14 / 28.
 */
public final class UltimateOscillatorRTIndicator extends BaseBarRTIndicator {

    private final int p1;
    private final int p2;
    private final int p3;
    private final DoubleRing bp;
    private final DoubleRing tr;
    private double prevClose = Double.NaN;

    public UltimateOscillatorRTIndicator() {
        this(null, 7, 14, 28);
    }

    public UltimateOscillatorRTIndicator(int p1, int p2, int p3) {
        this(null, p1, p2, p3);
    }

    public UltimateOscillatorRTIndicator(RTIndicator source, int p1, int p2, int p3) {
        super(source);
        this.p1 = checkPeriods(p1);
        this.p2 = checkPeriods(p2);
        this.p3 = checkPeriods(p3);
        int max = Math.max(p1, Math.max(p2, p3));
        bp = new DoubleRing(max);
        tr = new DoubleRing(max);
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        double pc = prevClose;
        prevClose = close;
        if (pc != pc) {
            return;
        }
        double lo = Math.min(low, pc);
        double hi = Math.max(high, pc);
        bp.push(close - lo);
        tr.push(hi - lo);
        if (!bp.full()) {
            return;
        }
        value = 100.0 * (4 * avg(p1) + 2 * avg(p2) + avg(p3)) / 7.0;
        ready = true;
    }

    private double avg(int n) {
        double b = 0;
        double t = 0;
        int size = bp.size();
        for (int i = size - n; i < size; i++) {
            b += bp.get(i);
            t += tr.get(i);
        }
        return t == 0 ? 0.0 : b / t;
    }

    @Override
    protected void clear() {
        bp.clear();
        tr.clear();
        prevClose = Double.NaN;
    }
}
