// §13: dotted property keys, defaults on the annotation only, a setter with a guard, CrossDetector.
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.CrossDetector;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

import java.time.Duration;

public class ConfigurableCrossStrategy extends AbstractTickerStrategy {

    @StrategyProperty(name = "ema.fast", description = "Fast EMA period", defaultValue = "9", min = 2, max = 50, step = 1)
    private int fastPeriod;

    @StrategyProperty(name = "ema.slow", description = "Slow EMA period", defaultValue = "21", min = 10, max = 200, step = 5)
    private int slowPeriod;

    @StrategyProperty(name = "window.seconds", description = "Window in seconds", defaultValue = "1")
    private int windowSeconds;

    public void setWindowSeconds(int seconds) {
        this.windowSeconds = Math.max(1, seconds);
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators
            .addPrice()
            .ema("fast", fastPeriod)
            .ema("slow", slowPeriod)
            .window("fast", Duration.ofSeconds(windowSeconds), new CrossListener(this, indicators));
    }

    private class CrossListener extends AbstractWindowListener {
        private final CrossDetector cross = new CrossDetector();

        CrossListener(AbstractTickerStrategy s, InstrumentGroupRTIndicator ind) {
            super(s, ind);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (!indicators.getExisting("slow").isReady()) {
                return;
            }
            CrossDetector.Cross result = cross.check(actual, indicators.getValue("slow"));
            if (result.above()) {
                emitBuy(indicators.getValue("price"));
            }
            if (result.below()) {
                emitSell(indicators.getValue("price"));
            }
        }
    }
}
