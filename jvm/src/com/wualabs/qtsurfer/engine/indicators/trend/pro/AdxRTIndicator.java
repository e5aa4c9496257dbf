package com.wualabs.qtsurfer.engine.indicators.trend.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Wilder's average directional index on bars. From the second bar: {@code up = high - prevHigh},
 * {@code down = prevLow - low}, {@code +DM = up > down && up > 0 ? up : 0}, {@code -DM} symmetrically,
 * {@code TR = max(high - low, |high - prevClose|, |low - prevClose|)}. The first {@code n} TR / DM values
 * are summed, then Wilder-smoothed ({@code s = s - s / n + x}); {@code +DI = 100 * s+DM / sTR},
 * {@code -DI = 100 * s-DM / sTR} (0 when sTR is 0), {@code DX = 100 * |+DI - -DI| / (+DI + -DI)}
 * (0 when the sum is 0). ADX is the mean of the first {@code n} DX values, then
 * {@code (adx * (n - 1) + dx) / n}. The value is ADX, ready after {@code 2n} bars. Default 14.
 */
public final class AdxRTIndicator extends BaseBarRTIndicator {

    private final int n;
    private double prevHigh = Double.NaN;
    private double prevLow;
    private double prevClose;
    private int dmCount;
    private double sTr;
    private double sPlus;
    private double sMinus;
    private int dxCount;
    private double dxSum;
    private double plusDi = Double.NaN;
    private double minusDi = Double.NaN;

    public AdxRTIndicator() {
        this(null, 14);
    }

    public AdxRTIndicator(int periods) {
        this(null, periods);
    }

    public AdxRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.n = checkPeriods(periods);
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        double ph = prevHigh;
        double pl = prevLow;
        double pc = prevClose;
        prevHigh = high;
        prevLow = low;
        prevClose = close;
        if (ph != ph) {
            return;
        }
        double up = high - ph;
        double down = pl - low;
        double pdm = up > down && up > 0 ? up : 0;
        double mdm = down > up && down > 0 ? down : 0;
        double tr = Math.max(high - low, Math.max(Math.abs(high - pc), Math.abs(low - pc)));
        if (dmCount < n) {
            sTr += tr;
            sPlus += pdm;
            sMinus += mdm;
            if (++dmCount < n) {
                return;
            }
        } else {
            sTr = sTr - sTr / n + tr;
            sPlus = sPlus - sPlus / n + pdm;
            sMinus = sMinus - sMinus / n + mdm;
        }
        plusDi = sTr == 0 ? 0 : 100.0 * sPlus / sTr;
        minusDi = sTr == 0 ? 0 : 100.0 * sMinus / sTr;
        double sum = plusDi + minusDi;
        double dx = sum == 0 ? 0 : 100.0 * Math.abs(plusDi - minusDi) / sum;
        if (ready) {
            value = (value * (n - 1) + dx) / n;
            return;
        }
        dxSum += dx;
        if (++dxCount == n) {
            value = dxSum / n;
            ready = true;
        }
    }

    /** +DI of the latest bar (NaN until n + 1 bars). */
    public double getPlusDi() {
        return plusDi;
    }

    /** -DI of the latest bar (NaN until n + 1 bars). */
    public double getMinusDi() {
        return minusDi;
    }

    @Override
    protected void clear() {
        prevHigh = Double.NaN;
        dmCount = 0;
        sTr = 0;
        sPlus = 0;
        sMinus = 0;
        dxCount = 0;
        dxSum = 0;
        plusDi = Double.NaN;
        minusDi = Double.NaN;
    }
}
