package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.GroupDriver;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;

/** A strategy over {@link Ticker} events. Implement {@code setupIndicators}; override {@link #update} if needed. */
public abstract class AbstractTickerStrategy extends AbstractSubscriptionStrategy<Ticker> {

    @Override
    public void update(Ticker ticker) {
        Instrument instrument = ticker.instrument();
        if (!accepted(instrument)) {
            return;
        }
        updateInstrument(instrument, ticker.timestamp());
        updateIndicators(instrument, ticker);
    }

    @Override
    public final InstrumentGroupRTIndicator updateIndicators(Instrument instrument, Ticker t) {
        handFeeding();
        InstrumentGroupRTIndicator g = groupOf(instrument);
        GroupDriver.ticker(g, t.timestamp(), t.bid(), t.bidSize(), t.ask(), t.askSize(), t.open(), t.high(),
                t.low(), t.last(), t.vwap(), t.volume(), t.quoteVolume(), t.percentageChange());
        return g;
    }

    /**
     * Rows {@code start .. end-1} of ticker columns, each as {@link #fastUpdate}: the first builds the group,
     * the rest go to it directly ({@link GroupDriver}, which reads only the columns its nodes use).
     * {@code progress[0]} ends up holding the number of rows delivered, also when a listener throws.
     */
    final void fastTickers(Instrument instrument, long[] ts, double[] bid, double[] bidSize, double[] ask,
                           double[] askSize, double[] last, double[] volume, int start, int end, long[] progress) {
        int i = start;
        try {
            if (i < end) {
                fastUpdate(instrument, ts[i], bid[i], bidSize[i], ask[i], askSize[i], last[i], volume[i]);
                i++;
            }
            InstrumentGroupRTIndicator g = groupOf(instrument); // built by the first row; never replaced
            if (i < end && GroupDriver.takesLazyRows(g)) {
                int[] at = {i};
                try {
                    i = GroupDriver.lazyTickers(this, instrument, g, ts, bid, bidSize, ask, askSize, last, volume, i,
                            end, at);
                } catch (Throwable thrown) { // a listener's failure: the rows before it were delivered
                    i = at[0];
                    throw thrown;
                }
            }
            for (; i < end; i++) {
                long t = ts[i];
                beginEvent(instrument, t);
                GroupDriver.ticker(g, t, bid, bidSize, ask, askSize, last, volume, i);
            }
        } finally {
            progress[0] = i - start;
        }
    }

    /** Engine-internal: {@link #update} without building a Ticker (used when update is not overridden). */
    final void fastUpdate(Instrument instrument, long ts, double bid, double bidSize, double ask, double askSize,
                          double last, double volume) {
        beginEvent(instrument, ts);
        double nan = Double.NaN;
        GroupDriver.ticker(groupOf(instrument), ts, bid, bidSize, ask, askSize, nan, nan, nan, last, nan, volume,
                nan, nan);
    }
}
