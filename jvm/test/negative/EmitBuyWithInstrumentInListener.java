// expect: method emitBuy in class AbstractWindowListener cannot be applied
// Inside a listener the one-argument emitBuy hides the strategy's two-argument one.
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

public class EmitBuyWithInstrumentInListener extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().window("price", WindowTime.s1, new L(this, indicators));
    }

    private class L extends AbstractWindowListener {
        L(AbstractTickerStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            emitBuy(instrument, actual);
        }
    }
}
