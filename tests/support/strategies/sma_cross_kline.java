import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

public class SmaCrossKline extends AbstractKlineStrategy {
    @StrategyProperty(name = "fast", description = "fast SMA length in bars", defaultValue = "10")
    private int fast = 10;

    @StrategyProperty(name = "slow", description = "slow SMA length in bars", defaultValue = "40")
    private int slow = 40;

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
