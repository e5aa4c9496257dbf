import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;

/** Paper tests: reports every bar, never buys or sells (its paper accounts never open). */
public class InfoOnly extends AbstractKlineStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Kline kline) {
        super.update(kline);
        emitInfo("close", kline.getClose());
    }
}
