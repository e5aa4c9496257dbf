// expect: method emitBuy in class AbstractStrategy cannot be applied
// The one-argument emitBuy exists only inside a window listener.
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class EmitBuyWithoutInstrument extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        emitBuy(ticker.last());
    }
}
