// §15: cross-instrument reads with getInstruments() / getRTIndicator(), explicit-instrument emission.
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.ZScoreRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.InfoStrategySignal;

import java.util.ArrayList;
import java.util.List;

public class RelativeStrengthStrategy extends AbstractTickerStrategy {

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().percentChange("price").add("closeZScore", new ZScoreRTIndicator(50));
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        Instrument self = ticker.instrument();
        double z = getRTIndicator(self, "closeZScore").map(RTIndicator::getValue).orElse(Double.NaN);
        List<Double> zs = new ArrayList<>();
        for (Instrument other : getInstruments()) {
            getRTIndicator(other, "closeZScore")
                .filter(RTIndicator::isReady)
                .ifPresent(ind -> zs.add(ind.getValue()));
        }
        if (zs.isEmpty() || Double.isNaN(z)) {
            return;
        }
        long below = zs.stream().filter(v -> v < z).count();
        double rank = (double) below / zs.size();
        if (getStateStore(self).orElseThrow().inc("ticks") % 500 == 0) {
            InfoStrategySignal info = createInfoStrategySignal(self);
            info.set("zscore", z);
            info.set("rank", rank);
            emitSignal(info);
        }
        if (z < -2.5) {
            emitBuy(self, ticker.last());
        } else if (z > 2.5) {
            emitSell(self, ticker.last());
        }
    }
}
