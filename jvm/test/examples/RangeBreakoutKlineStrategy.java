// A kline strategy: OHLCV fields registered as sources, a listener typed with the kline base class.
import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.AtrRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.KlineInterval;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;
import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;

public class RangeBreakoutKlineStrategy extends AbstractKlineStrategy {

    @StrategyProperty(name = "minRange", description = "Minimum range, percent", defaultValue = "0.5")
    private double minRange;

    private long lastClose;

    @Override
    public KlineInterval getInterval() {
        return KlineInterval.m1;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators
            .addPrice()
            .add("open", TickerValueSource.Open)
            .add("high", TickerValueSource.High)
            .add("low", TickerValueSource.Low)
            .add("close", TickerValueSource.Close)
            .add("volume", TickerValueSource.Volume)
            .add("atr", new AtrRTIndicator(14))
            .window("close", WindowTime.m1, new Breakout(this, indicators));
    }

    @Override
    public void update(Kline kline) {
        super.update(kline);
        lastClose = kline.getCloseTime();
    }

    private class Breakout extends AbstractWindowListener {
        Breakout(AbstractKlineStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            double high = indicators.getValue("high");
            double low = indicators.getValue("low");
            double open = indicators.getValue("open");
            double range = (high - low) / low * 100.0;
            if (range < minRange) {
                return;
            }
            if (actual > open) {
                emitBuy(actual);
            } else {
                emitSell(actual);
            }
        }
    }
}
