package com.wualabs.qtsurfer.engine.strategy.execution;

/**
 * How the engine turns a strategy's signals into positions (applied by the backtest, not by the strategy).
 * {@code LONG} (the default): a buy opens a long, a sell closes it. {@code SHORT}: a sell opens a short, a
 * buy covers it. {@code LONG_MULTI}: long only, further buys add entries while a position is open.
 * There is no {@code LONG_SHORT}.
 */
public enum ExecutionMode {
    LONG,
    SHORT,
    LONG_MULTI
}
