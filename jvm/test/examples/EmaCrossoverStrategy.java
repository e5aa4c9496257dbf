// §3.1: update() override doing both steps by hand, explicit-instrument emits.
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class EmaCrossoverStrategy extends AbstractTickerStrategy {

    private Boolean fastWasAbove;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().ema("fast", 9).ema("slow", 21);
    }

    @Override
    public void update(Ticker ticker) {
        Instrument instrument = ticker.instrument();
        updateInstrument(instrument, ticker.timestamp());
        var ind = updateIndicators(instrument, ticker);
        if (!ind.getReadOnlyExisting("slow").isReady()) {
            return;
        }
        boolean above = ind.getValue("fast") > ind.getValue("slow");
        if (fastWasAbove != null && above != fastWasAbove) {
            if (above) {
                emitBuy(instrument, ticker.last());
            } else {
                emitSell(instrument, ticker.last());
            }
        }
        fastWasAbove = above;
    }
}
