package com.wualabs.qtsurfer.engine.indicators.trend.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Wilder's parabolic SAR on bars (acceleration {@code step}, capped at {@code max}).
 *
 * <p>Bar 2 initialises: long when {@code high2 + low2 >= high1 + low1}, with {@code SAR = min(low1, low2)},
 * {@code EP = max(high1, high2)}; otherwise short with {@code SAR = max(high1, high2)},
 * {@code EP = min(low1, low2)}; {@code AF = step}. From bar 3: {@code SAR += AF * (EP - SAR)}, then clamped
 * (long: not above the two previous lows; short: not below the two previous highs). A long reverses when
 * {@code low < SAR} (SAR becomes EP, EP the bar's low, AF resets); a short when {@code high > SAR}.
 * Without a reversal a new extreme moves EP and raises AF by {@code step} up to {@code max}.
 * The value is the SAR, ready from bar 2. Defaults 0.02 / 0.2.
 */
public final class ParabolicSarRTIndicator extends BaseBarRTIndicator {

    private final double step;
    private final double max;
    private int bars;
    private double h1;
    private double l1;
    private double h2;
    private double l2;
    private boolean isLong;
    private double ep;
    private double af;

    public ParabolicSarRTIndicator() {
        this(null, 0.02, 0.2);
    }

    public ParabolicSarRTIndicator(double step, double max) {
        this(null, step, max);
    }

    public ParabolicSarRTIndicator(RTIndicator source, double step, double max) {
        super(source);
        if (!(step > 0) || !(max >= step)) {
            throw new IllegalArgumentException("need 0 < step <= max");
        }
        this.step = step;
        this.max = max;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        bars++;
        if (bars == 1) {
            h1 = high;
            l1 = low;
            return;
        }
        if (bars == 2) {
            isLong = high + low >= h1 + l1;
            value = isLong ? Math.min(l1, low) : Math.max(h1, high);
            ep = isLong ? Math.max(h1, high) : Math.min(l1, low);
            af = step;
            h2 = high;
            l2 = low;
            ready = true;
            return;
        }
        // h2/l2: previous bar, h1/l1: the bar before it
        double sar = value + af * (ep - value);
        if (isLong) {
            sar = Math.min(sar, Math.min(l1, l2));
            if (low < sar) {
                isLong = false;
                sar = ep;
                ep = low;
                af = step;
            } else if (high > ep) {
                ep = high;
                af = Math.min(af + step, max);
            }
        } else {
            sar = Math.max(sar, Math.max(h1, h2));
            if (high > sar) {
                isLong = true;
                sar = ep;
                ep = high;
                af = step;
            } else if (low < ep) {
                ep = low;
                af = Math.min(af + step, max);
            }
        }
        value = sar;
        h1 = h2;
        l1 = l2;
        h2 = high;
        l2 = low;
    }

    /** True while the SAR is below price (long). */
    public boolean isLong() {
        return isLong;
    }

    @Override
    protected void clear() {
        bars = 0;
        isLong = false;
        ep = 0;
        af = 0;
    }
}
