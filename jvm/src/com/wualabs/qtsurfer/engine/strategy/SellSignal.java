package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

/** A sell at {@code price}. Emit with {@code emitSignal(new SellSignal(instrument, price))}. */
public final class SellSignal extends StrategySignal {

    public SellSignal(Instrument instrument, double price) {
        super(instrument, price);
    }

    @Override
    public SellSignal set(String key, Object value) {
        super.set(key, value);
        return this;
    }

    @Override
    public SellSignal set(String key, Object... attributes) {
        super.set(key, attributes);
        return this;
    }

    @Override
    public int getSide() {
        return -1;
    }
}
