package com.wualabs.qtsurfer.engine.indicators.trend.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Ichimoku lines on bars, unshifted (as of the latest bar): tenkan = midpoint of the highest high and
 * lowest low of the last {@code tenkan} bars, kijun the same over {@code kijun} bars, senkou A =
 * (tenkan + kijun) / 2, senkou B = midpoint over {@code senkou} bars, chikou = the latest close. Each line
 * is NaN until its window is full. The value is the tenkan line; ready once senkou B is available.
 * Defaults 9 / 26 / 52.
 */
public final class IchimokuRTIndicator extends BaseBarRTIndicator {

    private final int tenkanN;
    private final int kijunN;
    private final int senkouN;
    private final DoubleRing highs;
    private final DoubleRing lows;
    private double tenkan = Double.NaN;
    private double kijun = Double.NaN;
    private double senkouB = Double.NaN;
    private double chikou = Double.NaN;

    public IchimokuRTIndicator() {
        this(null, 9, 26, 52);
    }

    public IchimokuRTIndicator(int tenkan, int kijun, int senkou) {
        this(null, tenkan, kijun, senkou);
    }

    public IchimokuRTIndicator(RTIndicator source, int tenkan, int kijun, int senkou) {
        super(source);
        this.tenkanN = checkPeriods(tenkan);
        this.kijunN = checkPeriods(kijun);
        int max = Math.max(tenkan, Math.max(kijun, checkPeriods(senkou)));
        highs = new DoubleRing(max);
        lows = new DoubleRing(max);
        this.senkouN = senkou;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        highs.push(high);
        lows.push(low);
        chikou = close;
        tenkan = mid(tenkanN);
        kijun = mid(kijunN);
        senkouB = mid(senkouN);
        if (senkouB == senkouB) {
            value = tenkan;
            ready = true;
        }
    }

    private double mid(int n) {
        int size = highs.size();
        if (size < n) {
            return Double.NaN;
        }
        double hh = Double.NEGATIVE_INFINITY;
        double ll = Double.POSITIVE_INFINITY;
        for (int i = size - n; i < size; i++) {
            hh = Math.max(hh, highs.get(i));
            ll = Math.min(ll, lows.get(i));
        }
        return (hh + ll) / 2;
    }

    public double getTenkan() {
        return tenkan;
    }

    public double getKijun() {
        return kijun;
    }

    public double getSenkouA() {
        return (tenkan + kijun) / 2;
    }

    public double getSenkouB() {
        return senkouB;
    }

    public double getChikou() {
        return chikou;
    }

    @Override
    protected void clear() {
        highs.clear();
        lows.clear();
        tenkan = Double.NaN;
        kijun = Double.NaN;
        senkouB = Double.NaN;
        chikou = Double.NaN;
    }
}
