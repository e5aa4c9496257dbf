package com.wualabs.qtsurfer.engine.indicators.volume.pro;

import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BaseBarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Elder's force index: {@link EmaRTIndicator} of {@code periods} over the raw force
 * {@code (close - prevClose) * volume}, available from the second bar. Ready after {@code periods + 1}
 * bars. Default 13.
 */
public final class ElderForceIndexRTIndicator extends BaseBarRTIndicator {

    private final EmaRTIndicator ema;
    private double prevClose = Double.NaN;

    public ElderForceIndexRTIndicator() {
        this(null, 13);
    }

    public ElderForceIndexRTIndicator(int periods) {
        this(null, periods);
    }

    public ElderForceIndexRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.ema = new EmaRTIndicator(periods);
    }

    @Override
    protected boolean usesVolume() {
        return true;
    }

    @Override
    protected void acceptBar(double open, double high, double low, double close, double volume) {
        double pc = prevClose;
        prevClose = close;
        if (pc != pc) {
            return;
        }
        ema.update((close - pc) * volume);
        if (ema.isReady()) {
            value = ema.getValue();
            ready = true;
        }
    }

    @Override
    protected void clear() {
        ema.reset();
        prevClose = Double.NaN;
    }
}
