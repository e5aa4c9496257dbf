// expect: variable store
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

public class OldListenerStoreField extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    private class L extends AbstractWindowListener {
        L(AbstractTickerStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore ignored, double prev, double actual) {
            this.store.inc("x");
        }
    }
}
