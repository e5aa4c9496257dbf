import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

/** The engine host's priming strategy for tickers: see {@code PrimeKlines}. */
public class PrimeTickers extends AbstractTickerStrategy {
    @StrategyProperty(name = "fast", description = "fast EMA periods", defaultValue = "3")
    private int fast = 3;

    @StrategyProperty(name = "slow", description = "slow EMA periods", defaultValue = "5")
    private int slow = 5;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().ema("fast", fast).ema("slow", slow).diff("spread", "fast", "slow")
            .window("spread", WindowTime.s1, new Cross(this, indicators));
    }

    class Cross extends AbstractWindowListener {
        Cross(AbstractTickerStrategy strategy, InstrumentGroupRTIndicator indicators) {
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
