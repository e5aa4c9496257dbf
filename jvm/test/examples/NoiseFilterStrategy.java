// Builder catalogue in one place: distance + in-place clamp + percentChange + conditional, volatility gate,
// gain streaks, predicates, arithmetic, the window() builder, engine setters and log.
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.GainRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;
import com.wualabs.qtsurfer.engine.strategy.VolatilityRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode;

import java.time.Duration;

public class NoiseFilterStrategy extends AbstractTickerStrategy {

    public NoiseFilterStrategy() {
        setPercentGain(0.5);
        setExecutionMode(ExecutionMode.LONG_MULTI);
        setMultiEntryEnabled(true);
    }

    @Override
    public ExecutionMode getExecutionMode(Instrument instrument) {
        return instrument.base().equals("DOGE") ? ExecutionMode.SHORT : super.getExecutionMode(instrument);
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        RTIndicator zero = new EmaRTIndicator(1);
        indicators
            .add("raw", TickerValueSource.Close)
            .add("bid", TickerValueSource.Bid)
            .add("ask", TickerValueSource.AutoAskClose)
            .addPrice()
            .ema("ema60", 60)
            .ema("ema500", 500)
            .distance("distemas", "ema60", "ema500")
            .clamp("distemas", v -> Math.abs(v) <= 0.1, 0.0)
            .percentChange("chgDistemas", "distemas")
            .conditional("smoothDistemas", "chgDistemas", ind -> ind.getValue() != 0, new EmaRTIndicator(20), zero)
            .add("vlts", new VolatilityRTIndicator(100).clampUpdates(200))
            .gain("_emaGain", "ema60")
            .lessThan("oversold", "distemas", -0.5)
            .periodCount("oversoldRun", "oversold", v -> v > 0)
            .diff("spread", "ask", "bid")
            .fun("spreadPct", "spread", "price", (a, b) -> a / b * 100)
            .round("spreadPct", 4)
            .equal("side", "oversold", 1, "bid", "ask")
            .predicate("inBand", "price", v -> v > 0 && v < 1_000_000)
            .decorate("slowPrice", "price", src -> new EmaRTIndicator(src, 5))
            .window("smoothDistemas", WindowTime.s1, new Entry(this, indicators))
            .window("price", Duration.ofMillis(100), new Exit(this, indicators))
            .window()
                .windowTime(WindowTime.m5)
                .indicator("vlts")
                .listener(new Heartbeat(this, indicators))
                .build();
        log.info("setup for {} on engine {}", indicators.getInstrument(), getEngineVersion());
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        StateStore store = getStateStore(ticker.instrument()).orElseThrow();
        store.add("volume", ticker.volume());
    }

    private class Entry extends AbstractWindowListener {
        Entry(AbstractTickerStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (store.is("fail") || indicators.getValue("vlts") < 50.0) {
                return;
            }
            if (actual > prev && indicators.getValue("oversoldRun") >= 3 && !store.is("long")) {
                store.set("long");
                store.setState("buyPrice", indicators.getValue("price"));
                emitBuy(indicators.getValue("price"));
            }
        }
    }

    private class Exit extends AbstractWindowListener {
        Exit(AbstractTickerStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (!store.is("long")) {
                return;
            }
            double buyPrice = store.getState("buyPrice", actual);
            double gain = (actual - buyPrice) / buyPrice * 100;
            GainRTIndicator streak = (GainRTIndicator) indicators.getExisting("_emaGain");
            if (streak.getPeriodCount() == 0 && gain > 0.5 || gain < -1.0) {
                store.unset("long");
                if (gain < 0) {
                    store.set("fail");
                }
                emitSell(actual);
            }
        }
    }

    private class Heartbeat extends AbstractWindowListener {
        Heartbeat(AbstractTickerStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            store.unset("fail");
            if (getEngineVersionMajor() >= 1 && getEngineVersionMinor() >= 0) {
                log.debug("window {} -> {} activity {}", getPrevInstant(), getCurrInstant(), actual);
            }
        }
    }
}
