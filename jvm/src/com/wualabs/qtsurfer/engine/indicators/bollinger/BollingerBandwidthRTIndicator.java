package com.wualabs.qtsurfer.engine.indicators.bollinger;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

/**
 * Bollinger bandwidth in percent, {@code (upper - lower) / middle * 100}, of its own
 * {@link BollingerRTIndicator}. (The builder's {@code bollingerBandwidth(name)} reads an already registered
 * band instead.) Display hint PERCENT.
 */
public final class BollingerBandwidthRTIndicator extends BaseRTIndicator {

    private final BollingerRTIndicator bands;

    public BollingerBandwidthRTIndicator(int periods, double k) {
        this(null, periods, k);
    }

    public BollingerBandwidthRTIndicator(RTIndicator source, int periods, double k) {
        super(source);
        this.bands = new BollingerRTIndicator(periods, k);
        withDisplayHint(DisplayHint.PERCENT);
    }

    @Override
    protected void accept(double x) {
        bands.update(x);
        if (bands.isReady()) {
            value = bands.getBandwidth();
            ready = true;
        }
    }

    @Override
    protected void clear() {
        bands.reset();
    }
}
