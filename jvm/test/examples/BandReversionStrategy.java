// Bollinger bands read by name from a listener on price.
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

public class BandReversionStrategy extends AbstractTickerStrategy {

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators
            .addPrice()
            .bollinger("bands", 20, 2.0)
            .bollinger(20, 2)
            .bollingerBandwidth("bands")
            .window("price", WindowTime.s5, new Touch(this, indicators));
    }

    private class Touch extends AbstractWindowListener {
        Touch(AbstractTickerStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (!indicators.getExisting("bands").isReady()) {
                return;
            }
            double upper = indicators.getValue("bandsUpper");
            double lower = indicators.getValue("blgr20_2Lower");
            if (actual <= lower && !store.is("long")) {
                emitBuy(actual);
                store.set("long");
            } else if (actual >= upper && store.is("long")) {
                emitSell(actual);
                store.unset("long");
            }
        }
    }
}
