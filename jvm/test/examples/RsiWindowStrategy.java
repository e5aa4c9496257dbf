// §9: inner window listener, store flags, one-argument emits inside the listener.
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

public class RsiWindowStrategy extends AbstractTickerStrategy {

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators
            .addPrice()
            .rsi(14)
            .window("rsi14", WindowTime.s1, new OversoldListener(this, indicators));
    }

    private class OversoldListener extends AbstractWindowListener {

        OversoldListener(AbstractTickerStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            long windows = store.inc("windows");
            if (windows < 3) {
                return;
            }
            if (actual < 30 && !store.is("long")) {
                emitBuy(indicators.getValue("price"));
                store.set("long");
            } else if (actual > 70 && store.is("long")) {
                emitSell(indicators.getValue("price"));
                store.unset("long");
            }
        }
    }
}
