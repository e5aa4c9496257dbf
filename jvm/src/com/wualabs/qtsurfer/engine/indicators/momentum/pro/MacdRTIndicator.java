package com.wualabs.qtsurfer.engine.indicators.momentum.pro;

import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * MACD: {@code macd = EMA(fast) - EMA(slow)}, {@code signal = EMA(signalPeriods)} of the macd line (fed
 * once both EMAs are ready), {@code histogram = macd - signal}. The value is the macd line; ready (and
 * non-NaN) once the signal line is ready, i.e. after {@code max(fast, slow) + signal - 1} inputs.
 * Defaults 12 / 26 / 9. EMAs are {@link EmaRTIndicator}s (SMA-seeded).
 */
public final class MacdRTIndicator extends BaseRTIndicator {

    private final EmaRTIndicator fast;
    private final EmaRTIndicator slow;
    private final EmaRTIndicator signal;
    private double histogram = Double.NaN;
    private double signalValue = Double.NaN;

    public MacdRTIndicator() {
        this(null, 12, 26, 9);
    }

    public MacdRTIndicator(int fast, int slow, int signal) {
        this(null, fast, slow, signal);
    }

    public MacdRTIndicator(RTIndicator source) {
        this(source, 12, 26, 9);
    }

    public MacdRTIndicator(RTIndicator source, int fast, int slow, int signal) {
        super(source);
        this.fast = new EmaRTIndicator(checkPeriods(fast));
        this.slow = new EmaRTIndicator(checkPeriods(slow));
        this.signal = new EmaRTIndicator(checkPeriods(signal));
    }

    @Override
    protected void accept(double x) {
        fast.update(x);
        slow.update(x);
        if (!fast.isReady() || !slow.isReady()) {
            return;
        }
        double macd = fast.getValue() - slow.getValue();
        signal.update(macd);
        if (signal.isReady()) {
            value = macd;
            signalValue = signal.getValue();
            histogram = macd - signalValue;
            ready = true;
        }
    }

    /** The signal line (NaN until ready). */
    public double getSignal() {
        return signalValue;
    }

    /** macd - signal (NaN until ready). */
    public double getHistogram() {
        return histogram;
    }

    @Override
    protected void clear() {
        fast.reset();
        slow.reset();
        signal.reset();
        histogram = Double.NaN;
        signalValue = Double.NaN;
    }
}
