import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

/** Throws an exception whose message holds NUL characters (PostgreSQL cannot store NUL). */
public class ThrowsNulMessage extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        throw new IllegalStateException("stopped at\u0000here\u0000");
    }
}
