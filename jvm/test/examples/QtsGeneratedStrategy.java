// The shape the QTScript front end generates (§17.13), with every engine package wildcard-imported:
//   strategy "Configured" / param fast = 9 / param gain = 0.5 / init { ... } / instruments */usdt
//   setup: ema(fast) window m1 { if (actual > prev) emitBuy(price); emitInfo("ema", actual); }
import com.wualabs.qtsurfer.engine.*;
import com.wualabs.qtsurfer.engine.core.*;
import com.wualabs.qtsurfer.engine.core.instrument.*;
import com.wualabs.qtsurfer.engine.core.state.*;
import com.wualabs.qtsurfer.engine.indicators.averages.*;
import com.wualabs.qtsurfer.engine.indicators.averages.pro.*;
import com.wualabs.qtsurfer.engine.indicators.bollinger.*;
import com.wualabs.qtsurfer.engine.indicators.core.*;
import com.wualabs.qtsurfer.engine.indicators.distance.*;
import com.wualabs.qtsurfer.engine.indicators.helpers.*;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.*;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.*;
import com.wualabs.qtsurfer.engine.indicators.momentum.*;
import com.wualabs.qtsurfer.engine.indicators.momentum.pro.*;
import com.wualabs.qtsurfer.engine.indicators.statistics.*;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.*;
import com.wualabs.qtsurfer.engine.indicators.trend.pro.*;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.*;
import com.wualabs.qtsurfer.engine.indicators.volume.pro.*;
import com.wualabs.qtsurfer.engine.strategy.*;
import com.wualabs.qtsurfer.engine.strategy.execution.*;
import java.util.*;
import java.util.function.*;
import java.util.stream.*;
import java.time.*;
import java.math.*;
import java.text.*;

public class QtsGeneratedStrategy extends AbstractTickerStrategy {

    @StrategyProperty(name = "fast", description = "Fast EMA", defaultValue = "9")
    int fast;

    @StrategyProperty(name = "gain", description = "Minimum percent gain", defaultValue = "0.5")
    double gain;

    public QtsGeneratedStrategy() {
        setPercentGain(gain);
        setMultiEntryEnabled(true);
        setExecutionMode(ExecutionMode.LONG_MULTI);
    }

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return super.acceptInstrument(instrument) && (instrument.quote().equalsIgnoreCase("usdt"));
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
        indicators.ema(fast);
        indicators.window(indicators.lastRegisteredName(), WindowTime.m1, new Window1(this, indicators));
        indicators.bollinger(20, 2);
        indicators.window(indicators.lastRegisteredName(), Duration.ofSeconds(900), new Window2(this, indicators));
    }

    private class Window1 extends AbstractWindowListener {
        Window1(AbstractStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        private double value(String name) {
            return indicators.getValue(name);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            double price = indicators.getValue("price");
            if (actual > prev) emitBuy(price);
            emitInfo("ema", actual, "price", value("price"));
        }
    }

    private class Window2 extends AbstractWindowListener {
        private final String $indicator = "blgr20_2";

        Window2(AbstractStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            double upper = indicators.getValue($indicator + "Upper");
            if (actual > upper) emitSell(actual);
        }
    }
}
