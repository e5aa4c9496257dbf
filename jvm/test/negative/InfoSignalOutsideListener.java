// expect: createInfoSignal
// createInfoSignal() exists only in listeners; strategy code uses createInfoStrategySignal(instrument).
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class InfoSignalOutsideListener extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        emitSignal(createInfoSignal());
    }
}
