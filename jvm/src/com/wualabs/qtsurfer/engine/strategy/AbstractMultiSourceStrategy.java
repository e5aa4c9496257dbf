package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.FundingRate;
import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.GroupDriver;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;

import java.util.Set;

/**
 * A strategy consuming several sources. {@link #getRequiredSources()} names them; events are dispatched to
 * {@link #onTicker}, {@link #onKline} and {@link #onFundingRate}, whose defaults all advance the same
 * per-instrument indicator group (fields a source does not carry are NaN and leave the indicators fed
 * from them unchanged). Events must arrive in time order across sources. When {@code KLine} is required,
 * {@link #getKlineInterval()} must not return null.
 */
public abstract class AbstractMultiSourceStrategy extends AbstractStrategy {

    /** The sources this strategy consumes. */
    public abstract Set<MarketDataSource> getRequiredSources();

    /** The bar width wanted when {@code KLine} is required (null by default). */
    public KlineInterval getKlineInterval() {
        return null;
    }

    public void onTicker(Ticker ticker) {
        Instrument instrument = ticker.instrument();
        if (!accepted(instrument)) {
            return;
        }
        updateInstrument(instrument, ticker.timestamp());
        updateIndicators(instrument, ticker);
    }

    public void onKline(Kline kline) {
        Instrument instrument = kline.getInstrument();
        if (!accepted(instrument)) {
            return;
        }
        updateInstrument(instrument, kline.getCloseTime());
        updateIndicators(instrument, kline);
    }

    public void onFundingRate(FundingRate funding) {
        Instrument instrument = funding.instrument();
        if (!accepted(instrument)) {
            return;
        }
        updateInstrument(instrument, funding.timestamp());
        updateIndicators(instrument, funding);
    }

    public final InstrumentGroupRTIndicator updateIndicators(Instrument instrument, Ticker t) {
        handFeeding();
        InstrumentGroupRTIndicator g = groupOf(instrument);
        GroupDriver.ticker(g, t.timestamp(), t.bid(), t.bidSize(), t.ask(), t.askSize(), t.open(), t.high(),
                t.low(), t.last(), t.vwap(), t.volume(), t.quoteVolume(), t.percentageChange());
        return g;
    }

    public final InstrumentGroupRTIndicator updateIndicators(Instrument instrument, Kline k) {
        handFeeding();
        InstrumentGroupRTIndicator g = groupOf(instrument);
        GroupDriver.kline(g, k.getOpenTime(), k.getCloseTime(), k.getOpen(), k.getHigh(), k.getLow(), k.getClose(),
                k.getVolume());
        return g;
    }

    public final InstrumentGroupRTIndicator updateIndicators(Instrument instrument, FundingRate f) {
        handFeeding();
        InstrumentGroupRTIndicator g = groupOf(instrument);
        GroupDriver.funding(g, f.timestamp(), f.rate(), f.markPrice());
        return g;
    }
}
