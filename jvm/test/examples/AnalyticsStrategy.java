// Non-trading analytics: advanced indicators composed through read-only views, a custom RTIndicator,
// an AbstractRTIndicator subclass with metadata, InfoStrategySignal with a chart marker from a listener.
import com.wualabs.qtsurfer.engine.EngineVersion;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.StandardDeviationRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.ZScoreRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;
import com.wualabs.qtsurfer.engine.strategy.InfoStrategySignal;

import java.text.DecimalFormat;

public class AnalyticsStrategy extends AbstractTickerStrategy {

    /** Mid price of the last update (a custom indicator implementing the interface directly). */
    public static class LastChange implements RTIndicator {
        private double last = Double.NaN;
        private double value;
        private boolean ready;

        @Override
        public double getValue() {
            return value;
        }

        @Override
        public double update(double newValue) {
            if (!Double.isNaN(last)) {
                value = newValue - last;
                ready = true;
            }
            last = newValue;
            return value;
        }

        @Override
        public boolean isReady() {
            return ready;
        }

        @Override
        public void reset() {
            last = Double.NaN;
            value = 0;
            ready = false;
        }
    }

    /** Half of the source's value, built on the scaffolding class. */
    public static class Half extends AbstractRTIndicator {
        private final RTIndicator source;

        public Half(RTIndicator source) {
            this.source = source;
            withDisplayHint(DisplayHint.PRICE).withMeta("unit", "quote");
        }

        @Override
        public double update(double newValue) {
            value = source.getValue() / 2;
            return value;
        }

        @Override
        public boolean isReady() {
            return source.isReady();
        }
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators
            .addPrice()
            .sma("mean", 20)
            .add("std", new StandardDeviationRTIndicator(20))
            .add("stdOfMean", new StandardDeviationRTIndicator(indicators.getReadOnlyExisting("mean"), 20))
            .add("z", new ZScoreRTIndicator(indicators.getExisting("mean").ro(), 30))
            .add("_change", new LastChange())
            .add("halfMean", new Half(indicators.getReadOnlyExisting("mean")));
        indicators.getReadOnly("price").ifPresent(src -> indicators.add("halfPrice", new Half(src)));
        indicators.window("price", WindowTime.m1, new Reporter(this, indicators));
    }

    private class Reporter extends AbstractWindowListener {
        private final DecimalFormat fmt = new DecimalFormat("0.00");

        Reporter(AbstractTickerStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (!indicators.getExisting("z").isReady()) {
                return;
            }
            InfoStrategySignal signal = createInfoSignal();
            signal.set("interval", "1m");
            signal.set("zscore", indicators.getValue("z"));
            signal.set("std", fmt.format(indicators.getValue("std")));
            signal.set("window", getPrevInstant() + ".." + getCurrInstant());
            signal.set("engine", getEngineVersion() + " (patch " + EngineVersion.getPatch() + ")");
            if (indicators.getValue("z") < -1) {
                signal.set("_m", "position", "belowBar", "shape", "arrowUp", "color", "#26a69a", "text", "LOW");
            }
            emitSignal(signal);
        }
    }
}
