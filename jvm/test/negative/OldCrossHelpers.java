// expect: detectCrossAbove
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

public class OldCrossHelpers extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().window("price", WindowTime.s1, new L(this, indicators));
    }

    private class L extends AbstractWindowListener {
        private final Boolean[] cross = new Boolean[1];

        L(AbstractTickerStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (detectCrossAbove(cross, 0, actual, prev)) emitBuy(actual);
        }
    }
}
