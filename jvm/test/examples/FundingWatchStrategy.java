// A funding-rate strategy that computes rather than trades (emitInfo from a listener).
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractFundingRateStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

public class FundingWatchStrategy extends AbstractFundingRateStrategy {

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return instrument.symbol().matches("^[A-Z]+/USDT:USDT$") || instrument.quote().equals("USDT");
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addRate().ema("rateEma", "rate", 3).window("rate", WindowTime.m5, new Watch(this, indicators));
    }

    private class Watch extends AbstractWindowListener {
        Watch(AbstractFundingRateStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            emitInfo("funding", actual, "instrument", instrument.symbol(), "ema", indicators.getValue("rateEma"));
        }
    }
}
