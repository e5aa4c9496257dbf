package com.wualabs.qtsurfer.engine.indicators.volatility.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

/**
 * Normalised ATR in percent: {@code 100 * ATR / close} (NaN when the close is 0), with
 * {@link AtrRTIndicator}. Ready after {@code periods} bars. Default 14.
 */
public final class NatrRTIndicator extends BaseBarRTIndicator {

    private final AtrRTIndicator atr;

    public NatrRTIndicator() {
        this(null, 14);
    }

    public NatrRTIndicator(int periods) {
        this(null, periods);
    }

    public NatrRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.atr = new AtrRTIndicator(periods);
        withDisplayHint(DisplayHint.PERCENT);
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        atr.updateBar(open, high, low, close, volume);
        if (atr.isReady()) {
            value = close == 0 ? Double.NaN : 100.0 * atr.getValue() / close;
            ready = true;
        }
    }

    @Override
    protected void clear() {
        atr.reset();
    }
}
