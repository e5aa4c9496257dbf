package com.wualabs.qtsurfer.engine.core;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

/**
 * One ticker event. A record: read it with accessors ({@code ticker.last()}, {@code ticker.timestamp()}),
 * not JavaBean getters. {@code timestamp} is epoch milliseconds (event time).
 *
 * <p>Fields the data source does not carry are {@code Double.NaN} (see docs/strategy-semantics.md).
 */
public record Ticker(
        Instrument instrument,
        double bid,
        double bidSize,
        double ask,
        double askSize,
        double open,
        double high,
        double low,
        double last,
        double vwap,
        double volume,
        double quoteVolume,
        double percentageChange,
        long timestamp) {
}
