import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

/**
 * The engine host's priming strategy for klines (HostMain, {@code Prime}): a strategy of the shape
 * most sweeps have, run once over a few rows when the host starts, so that the first user request
 * does not pay for loading and linking the request path. Built by jvm/build.sh into the jar as a
 * resource (never as a loadable class) and handed to the host's sandbox as a user's class files are.
 */
public class PrimeKlines extends AbstractKlineStrategy {
    @StrategyProperty(name = "fast", description = "fast SMA length in bars", defaultValue = "3")
    private int fast = 3;

    @StrategyProperty(name = "slow", description = "slow SMA length in bars", defaultValue = "5")
    private int slow = 5;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().sma("fast", fast).sma("slow", slow).diff("spread", "fast", "slow")
            .window("spread", WindowTime.s1, new Cross(this, indicators));
    }

    class Cross extends AbstractWindowListener {
        Cross(AbstractKlineStrategy strategy, InstrumentGroupRTIndicator indicators) {
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
