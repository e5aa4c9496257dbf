package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

/**
 * A non-trading signal carrying computed fields (analytics, metrics, chart markers). Create it with
 * {@code createInfoStrategySignal(instrument)} on the strategy or {@code createInfoSignal()} in a window
 * listener, attach fields with {@link #set}, then {@code emitSignal(signal)}.
 */
public final class InfoStrategySignal extends StrategySignal {

    public InfoStrategySignal(Instrument instrument) {
        super(instrument, Double.NaN);
    }

    @Override
    public InfoStrategySignal set(String key, Object value) {
        super.set(key, value);
        return this;
    }

    @Override
    public InfoStrategySignal set(String key, Object... attributes) {
        super.set(key, attributes);
        return this;
    }

    @Override
    public int getSide() {
        return 0;
    }
}
