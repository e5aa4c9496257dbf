package com.wualabs.qtsurfer.engine.core;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

/**
 * One funding-rate update. {@code timestamp} is epoch milliseconds; {@code markPrice} is the mark price
 * published with the rate, or {@code Double.NaN} when the data has none.
 */
public record FundingRate(Instrument instrument, double rate, long timestamp, double markPrice) {

    /** A funding rate without a mark price. */
    public FundingRate(Instrument instrument, double rate, long timestamp) {
        this(instrument, rate, timestamp, Double.NaN);
    }
}
