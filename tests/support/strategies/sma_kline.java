import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

public class SmaKline extends AbstractKlineStrategy {
    @StrategyProperty(name = "sma.period", description = "SMA length in bars", defaultValue = "20")
    private int period = 20;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().sma("sma", period).window("sma", WindowTime.m1, new Trend(this, indicators));
    }

    class Trend extends AbstractWindowListener {
        Trend(AbstractKlineStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (actual > prev && !store.is("long")) {
                store.set("long");
                emitBuy(indicators.getValue("price"));
            } else if (actual < prev && store.is("long")) {
                store.unset("long");
                emitSell(indicators.getValue("price"));
            }
        }
    }
}
