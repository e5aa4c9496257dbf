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

    /**
     * Rows {@code start .. end-1} of kline columns, each as {@link #fastUpdate}: the first builds the group,
     * the rest go to it directly ({@link GroupDriver}, which reads only the columns its nodes use).
     * {@code progress[0]} ends up holding the number of rows delivered, also when a listener throws.
     */
    final void fastKlines(Instrument instrument, long[] openTs, long[] closeTs, double[] open, double[] high,
                          double[] low, double[] close, double[] volume, int start, int end, long[] progress) {
        int i = start;
        try {
            if (i < end) {
                fastUpdate(instrument, openTs[i], closeTs[i], open[i], high[i], low[i], close[i], volume[i]);
                i++;
            }
            InstrumentGroupRTIndicator g = groupOf(instrument); // built by the first row; never replaced
            if (i < end && GroupDriver.takesLazyRows(g)) {
                int[] at = {i};
                try {
                    i = GroupDriver.lazyKlines(this, instrument, g, openTs, closeTs, open, high, low, close, volume,
                            i, end, at);
                } catch (Throwable thrown) { // a listener's failure: the rows before it were delivered
                    i = at[0];
                    throw thrown;
                }
            }
            for (; i < end; i++) {
                long closeAt = closeTs[i];
                beginEvent(instrument, closeAt);
                GroupDriver.kline(g, openTs[i], closeAt, open, high, low, close, volume, i);
            }
        } finally {
            progress[0] = i - start;
        }
    }

    /** Engine-internal: {@link #update} without building a Kline (used when update is not overridden). */
    final void fastUpdate(Instrument instrument, long openTs, long closeTs, double open, double high, double low,
                          double close, double volume) {
        beginEvent(instrument, closeTs);
        GroupDriver.kline(groupOf(instrument), openTs, closeTs, open, high, low, close, volume);
    }
}
