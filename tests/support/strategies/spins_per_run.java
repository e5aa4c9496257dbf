import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

/** Burns a fixed amount of CPU once per run ({@code work} million steps), then idles. */
public class SpinsPerRun extends AbstractTickerStrategy {
    @StrategyProperty(name = "work", description = "millions of steps per run", defaultValue = "100", min = 1, max = 10000, step = 1)
    private int work = 100;

    private long acc;
    private boolean spun;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        if (spun) {
            return;
        }
        spun = true;
        long steps = work * 1_000_000L;
        for (long i = 0; i < steps; i++) {
            acc = acc * 31 + (i ^ (acc >>> 7));
        }
    }
}
