package com.wualabs.qtsurfer.engine.indicators.volume.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Money flow index on bars: typical price {@code tp = (high + low + close) / 3}, raw flow {@code tp * v},
 * positive when tp rose, negative when it fell (neither when equal); over the last {@code periods} flows
 * {@code MFI = 100 - 100 / (1 + pos / neg)} (100 when neg is 0 and pos is not, 50 when both are 0).
 * Ready after {@code periods + 1} bars. Default 14.
 */
public final class MfiRTIndicator extends BaseBarRTIndicator {

    private final DoubleRing pos;
    private final DoubleRing neg;
    private double prevTp = Double.NaN;

    public MfiRTIndicator() {
        this(null, 14);
    }

    public MfiRTIndicator(int periods) {
        this(null, periods);
    }

    public MfiRTIndicator(RTIndicator source, int periods) {
        super(source);
        pos = new DoubleRing(checkPeriods(periods));
        neg = new DoubleRing(periods);
    }

    @Override
    protected boolean usesVolume() {
        return true;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        double tp = (high + low + close) / 3.0;
        double ptp = prevTp;
        prevTp = tp;
        if (ptp != ptp) {
            return;
        }
        double flow = tp * volume;
        pos.push(tp > ptp ? flow : 0);
        neg.push(tp < ptp ? flow : 0);
        if (pos.full()) {
            double p = pos.sum();
            double m = neg.sum();
            value = m <= 0 ? (p <= 0 ? 50.0 : 100.0) : 100.0 - 100.0 / (1.0 + p / m);
            ready = true;
        }
    }

    @Override
    protected void clear() {
        pos.clear();
        neg.clear();
        prevTp = Double.NaN;
    }
}
