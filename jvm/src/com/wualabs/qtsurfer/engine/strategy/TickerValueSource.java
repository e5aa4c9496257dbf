package com.wualabs.qtsurfer.engine.strategy;

/**
 * Raw fields of the incoming event, for {@code indicators.add(name, TickerValueSource.X)}.
 *
 * <p>On a kline event {@code Open}/{@code High}/{@code Low}/{@code Close}/{@code Volume} are the bar's and
 * the other fields are NaN. On a funding event {@code Rate} is the funding rate and {@code Close} the mark
 * price (NaN when absent). A NaN field leaves the indicator fed from it unchanged for that event.
 */
public enum TickerValueSource {
    Bid,
    BidSize,
    Ask,
    AskSize,
    Open,
    High,
    Low,
    /** The last trade price on a ticker, the close on a kline, the mark price on a funding event. */
    Close,
    Vwap,
    Volume,
    VolumeQuote,
    PercentChange,
    /** The ask when it is a positive number, otherwise {@code Close}. */
    AutoAskClose,
    /** The funding rate (NaN on ticker and kline events). */
    Rate
}
