package com.wualabs.qtsurfer.engine.indicators.trend.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.AtrRTIndicator;

/**
 * SuperTrend on bars with a Wilder ATR of {@code periods} ({@link AtrRTIndicator}) and multiplier
 * {@code m}. With {@code mid = (high + low) / 2}: basic bands {@code mid +/- m * ATR}. On the first bar
 * with an ATR the final bands are the basic ones and the trend is up when {@code close >= mid}. Later:
 * {@code finalUpper = basicUpper < prevFinalUpper || prevClose > prevFinalUpper ? basicUpper : prevFinalUpper},
 * {@code finalLower = basicLower > prevFinalLower || prevClose < prevFinalLower ? basicLower : prevFinalLower};
 * an uptrend turns down when {@code close < finalLower}, a downtrend turns up when
 * {@code close > finalUpper}. The value is the final lower band in an uptrend, the final upper band in a
 * downtrend. Ready after {@code periods} bars. Defaults 10 / 3.
 */
public final class SuperTrendRTIndicator extends BaseBarRTIndicator {

    private final AtrRTIndicator atr;
    private final double multiplier;
    private double finalUpper = Double.NaN;
    private double finalLower = Double.NaN;
    private double prevClose = Double.NaN;
    private boolean up;

    public SuperTrendRTIndicator() {
        this(null, 10, 3.0);
    }

    public SuperTrendRTIndicator(int periods) {
        this(null, periods, 3.0);
    }

    public SuperTrendRTIndicator(RTIndicator source, int periods) {
        this(source, periods, 3.0);
    }

    public SuperTrendRTIndicator(int periods, double multiplier) {
        this(null, periods, multiplier);
    }

    public SuperTrendRTIndicator(RTIndicator source, int periods, double multiplier) {
        super(source);
        this.atr = new AtrRTIndicator(periods);
        this.multiplier = multiplier;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        atr.updateBar(open, high, low, close, volume);
        double pc = prevClose;
        prevClose = close;
        if (!atr.isReady()) {
            return;
        }
        double mid = (high + low) / 2;
        double bu = mid + multiplier * atr.getValue();
        double bl = mid - multiplier * atr.getValue();
        if (!ready) {
            finalUpper = bu;
            finalLower = bl;
            up = close >= mid;
        } else {
            finalUpper = bu < finalUpper || pc > finalUpper ? bu : finalUpper;
            finalLower = bl > finalLower || pc < finalLower ? bl : finalLower;
            if (up && close < finalLower) {
                up = false;
            } else if (!up && close > finalUpper) {
                up = true;
            }
        }
        value = up ? finalLower : finalUpper;
        ready = true;
    }

    /** True while the trend is up. */
    public boolean isUptrend() {
        return up;
    }

    /** +1 in an uptrend, -1 in a downtrend, 0 before ready. */
    public int getDirection() {
        return !ready ? 0 : up ? 1 : -1;
    }

    public double getUpperBand() {
        return finalUpper;
    }

    public double getLowerBand() {
        return finalLower;
    }

    @Override
    protected void clear() {
        atr.reset();
        finalUpper = Double.NaN;
        finalLower = Double.NaN;
        prevClose = Double.NaN;
        up = false;
    }
}
