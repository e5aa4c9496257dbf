import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import java.util.Random;

/** Live tests: its output depends on randomness, which the sandbox twin must catch. */
public class Dice extends AbstractKlineStrategy {
    private final Random random = new Random();

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Kline kline) {
        super.update(kline);
        if (random.nextBoolean()) {
            emitBuy(kline.getInstrument(), kline.getClose());
        } else {
            emitSell(kline.getInstrument(), kline.getClose());
        }
    }
}
