import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;

/** Paper tests: listens to its own execution (getExecutionCallback), so it needs paper. */
public class Callback extends AbstractKlineStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    public Object getExecutionCallback() {
        return null;
    }

    @Override
    public void update(Kline kline) {
        super.update(kline);
        emitBuy(kline.getInstrument(), kline.getClose());
    }
}
