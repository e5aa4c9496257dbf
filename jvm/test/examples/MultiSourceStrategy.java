// The multi-source base: required sources, kline interval, per-source handlers.
import com.wualabs.qtsurfer.engine.core.FundingRate;
import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractMultiSourceStrategy;
import com.wualabs.qtsurfer.engine.strategy.KlineInterval;
import com.wualabs.qtsurfer.engine.strategy.MarketDataSource;

import java.util.EnumSet;
import java.util.Set;

public class MultiSourceStrategy extends AbstractMultiSourceStrategy {

    private double lastRate;

    @Override
    public Set<MarketDataSource> getRequiredSources() {
        return EnumSet.of(MarketDataSource.Ticker, MarketDataSource.KLine, MarketDataSource.FundingRate);
    }

    @Override
    public KlineInterval getKlineInterval() {
        return KlineInterval.m1;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().addRate().ema(9);
    }

    @Override
    public void onTicker(Ticker ticker) {
        super.onTicker(ticker);
        if (lastRate < 0 && ticker.last() > 0) {
            emitBuy(ticker.instrument(), ticker.last());
            lastRate = 0;
        }
    }

    @Override
    public void onKline(Kline kline) {
        super.onKline(kline);
    }

    @Override
    public void onFundingRate(FundingRate funding) {
        super.onFundingRate(funding);
        lastRate = funding.rate();
    }
}
