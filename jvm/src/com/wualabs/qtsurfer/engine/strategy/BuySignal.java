package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

/** A buy at {@code price}. Emit with {@code emitSignal(new BuySignal(instrument, price))}. */
public final class BuySignal extends StrategySignal {

    public BuySignal(Instrument instrument, double price) {
        super(instrument, price);
    }

    @Override
    public BuySignal set(String key, Object value) {
        super.set(key, value);
        return this;
    }

    @Override
    public BuySignal set(String key, Object... attributes) {
        super.set(key, attributes);
        return this;
    }

    @Override
    public int getSide() {
        return 1;
    }
}
