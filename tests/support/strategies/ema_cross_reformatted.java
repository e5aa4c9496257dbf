// A reformatted copy of ema_cross.java: comments, blank lines, indentation and import order
// differ, and the two members of the listener are swapped. The meaning is the same.
package com.example;

import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.core.state.StateStore;

/** EMA crossover. */
public class EmaCross extends AbstractTickerStrategy
{
    @StrategyProperty(name = "fast", description = "fast EMA periods", defaultValue = "9", min = 2, max = 50, step = 1)
    private int fast = 9;


    @StrategyProperty(name = "slow", description = "slow EMA periods", defaultValue = "21")
    private int slow = 21;

    class Listener extends AbstractWindowListener
    {
        @Override
        public void onChange(StateStore store, double prev, double actual)
        {
            if (prev <= 0 && actual > 0) { emitBuy(indicators.getValue("price")); }   // cross up
            else if (prev >= 0 && actual < 0) { emitSell(indicators.getValue("price")); }
        }

        Listener(AbstractTickerStrategy strategy, InstrumentGroupRTIndicator indicators)
        {
            super(strategy, indicators);
        }
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators)
    {
        /* the whole chain on one statement */
        indicators.addPrice()
                  .ema("fast", fast)
                  .ema("slow", slow)
                  .diff("spread", "fast", "slow")
                  .window("spread", WindowTime.s1, new Listener(this, indicators));
    }
}
