package com.example;

import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

public class EmaCrossFragile extends AbstractTickerStrategy {
    @StrategyProperty(name = "fast", description = "fast EMA periods", defaultValue = "9")
    private int fast = 9;

    @StrategyProperty(name = "slow", description = "slow EMA periods", defaultValue = "21")
    private int slow = 21;

    @StrategyProperty(name = "failAt", description = "a fast period this strategy refuses", defaultValue = "-1")
    private int failAt = -1;

    @StrategyProperty(name = "scale", description = "unused real property", defaultValue = "1.0")
    private double scale = 1.0;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        if (fast == failAt) {
            throw new IllegalStateException("fast period " + fast + " is refused");
        }
        indicators.addPrice().ema("fast", fast).ema("slow", slow).diff("spread", "fast", "slow")
            .window("spread", WindowTime.s1, new Listener(this, indicators));
    }

    class Listener extends AbstractWindowListener {
        Listener(AbstractTickerStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("price"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("price"));
            }
        }
    }
}
