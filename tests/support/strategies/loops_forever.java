import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class LoopsForever extends AbstractTickerStrategy {
    private long spins;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        while (ticker.last() > 0) {
            spins++;
        }
    }
}
