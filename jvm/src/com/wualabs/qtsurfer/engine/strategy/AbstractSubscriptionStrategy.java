package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;

/**
 * Base of the single-source strategies: {@code T} is the event type ({@code Ticker}, {@code Kline},
 * {@code FundingRate}). {@link #update} is called for every event; its default advances the event's
 * instrument: {@code updateInstrument(instrument, time)} then {@code updateIndicators(instrument, event)}.
 * An override must call {@code super.update(event)} first or do both steps itself.
 */
public abstract class AbstractSubscriptionStrategy<T> extends AbstractStrategy {

    /** Called for every data event. */
    public abstract void update(T event);

    /**
     * Advances {@code instrument}'s indicators (and windows) with {@code event} and returns its group.
     */
    public abstract InstrumentGroupRTIndicator updateIndicators(Instrument instrument, T event);
}
