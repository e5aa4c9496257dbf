package com.wualabs.qtsurfer.engine.strategy;

/** Data sources a multi-source strategy can require (see {@code AbstractMultiSourceStrategy}). */
public enum MarketDataSource {
    Ticker,
    KLine,
    FundingRate
}
