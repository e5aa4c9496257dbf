import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

/** Paper tests: buys up bars and sells down bars; with hold=true it only buys (never closes). */
public class FlipHold extends AbstractKlineStrategy {
    @StrategyProperty(name = "hold", description = "only buy, never sell", defaultValue = "false")
    private boolean hold = false;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Kline kline) {
        super.update(kline);
        if (hold || kline.getClose() >= kline.getOpen()) {
            emitBuy(kline.getInstrument(), kline.getClose());
        } else {
            emitSell(kline.getInstrument(), kline.getClose());
        }
    }
}
