package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.FundingRate;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.GroupDriver;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;

/** A strategy over {@link FundingRate} updates. Register the rate with {@code indicators.addRate()}. */
public abstract class AbstractFundingRateStrategy extends AbstractSubscriptionStrategy<FundingRate> {

    @Override
    public void update(FundingRate funding) {
        Instrument instrument = funding.instrument();
        if (!accepted(instrument)) {
            return;
        }
        updateInstrument(instrument, funding.timestamp());
        updateIndicators(instrument, funding);
    }

    @Override
    public final InstrumentGroupRTIndicator updateIndicators(Instrument instrument, FundingRate f) {
        handFeeding();
        InstrumentGroupRTIndicator g = groupOf(instrument);
        GroupDriver.funding(g, f.timestamp(), f.rate(), f.markPrice());
        return g;
    }

    /** Engine-internal: {@link #update} without building a FundingRate (used when update is not overridden). */
    final void fastUpdate(Instrument instrument, long ts, double rate, double markPrice) {
        beginEvent(instrument, ts);
        GroupDriver.funding(groupOf(instrument), ts, rate, markPrice);
    }
}
