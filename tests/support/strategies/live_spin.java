import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;

/** Live tests: the attacker. Spins forever in its third live bar. */
public class Spin extends AbstractKlineStrategy {
    private long seen;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Kline kline) {
        super.update(kline);
        if (++seen >= 3) {
            while (kline.getClose() > 0) {
                seen = seen * 31 + 1;
            }
        }
        emitBuy(kline.getInstrument(), kline.getClose());
    }
}
