package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.GroupDriver;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;

/**
 * A strategy over {@link Kline} bars (OHLCV only). The event time of a bar is its close time. In a
 * backtest bars arrive at the prepared cadence, whatever {@link #getInterval()} returns.
 */
public abstract class AbstractKlineStrategy extends AbstractSubscriptionStrategy<Kline> {

    /** The bar width the strategy is designed for (informational; default one minute). */
    public KlineInterval getInterval() {
        return KlineInterval.m1;
    }

    @Override
    public void update(Kline kline) {
        Instrument instrument = kline.getInstrument();
        if (!accepted(instrument)) {
            return;
        }
        updateInstrument(instrument, kline.getCloseTime());
        updateIndicators(instrument, kline);
    }

    @Override
    public final InstrumentGroupRTIndicator updateIndicators(Instrument instrument, Kline k) {
        handFeeding();
        InstrumentGroupRTIndicator g = groupOf(instrument);
        GroupDriver.kline(g, k.getOpenTime(), k.getCloseTime(), k.getOpen(), k.getHigh(), k.getLow(), k.getClose(),
                k.getVolume());
        return g;
    }

    /** Engine-internal: {@link #update} without building a Kline (used when update is not overridden). */
    final void fastUpdate(Instrument instrument, long openTs, long closeTs, double open, double high, double low,
                          double close, double volume) {
        beginEvent(instrument, closeTs);
        GroupDriver.kline(groupOf(instrument), openTs, closeTs, open, high, low, close, volume);
    }
}
