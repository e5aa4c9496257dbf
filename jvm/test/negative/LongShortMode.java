// expect: LONG_SHORT
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode;

public class LongShortMode extends AbstractTickerStrategy {
    @Override
    public ExecutionMode getExecutionMode(Instrument instrument) {
        return ExecutionMode.LONG_SHORT;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }
}
