package com.wualabs.qtsurfer.engine.indicators.core;

import com.wualabs.qtsurfer.engine.strategy.AbstractRTIndicator;

/**
 * Base of the built-in indicators.
 *
 * <p>{@link #update(double)} is final: when the indicator was built with a source indicator it first
 * calls {@code source.update(x)} (a read-only view just returns its current value, a private standalone
 * indicator is advanced) and uses the result as its input; a {@code NaN} input is ignored (no state
 * change); otherwise {@link #accept(double)} consumes it. The value is {@code NaN} until ready.
 */
public abstract class BaseRTIndicator extends AbstractRTIndicator {

    /** Optional source indicator; null when the indicator consumes the value it is updated with. */
    protected final RTIndicator source;
    /** Set by subclasses once warm-up is over. */
    protected boolean ready;

    protected BaseRTIndicator(RTIndicator source) {
        this.source = source;
    }

    protected BaseRTIndicator() {
        this(null);
    }

    @Override
    public final double update(double x) {
        if (source != null) {
            x = source.update(x);
        }
        if (x != x) {
            return value;
        }
        accept(x);
        return value;
    }

    /**
     * For each of {@code in[0 .. len)} in turn, {@code v = x == x ? update(x) : v}, with {@code v} written to
     * {@code out[at + k]} after each one (when {@code out} is not null); returns the last {@code v}. The
     * series loop of an indicator that has none of its own, or has a source ({@code updateAll} of the SMA
     * and the EMA).
     */
    protected final double updateEach(double[] in, int len, double[] out, int at, double v) {
        for (int k = 0; k < len; k++) {
            double x = in[k];
            v = x == x ? update(x) : v;
            if (out != null) {
                out[at + k] = v;
            }
        }
        return v;
    }

    /** Consumes one non-NaN input, updating {@link #value} and {@link #ready}. */
    protected abstract void accept(double x);

    /** Clears subclass state (value and ready are cleared by {@link #reset()}). */
    protected abstract void clear();

    @Override
    public boolean isReady() {
        return ready;
    }

    @Override
    public void reset() {
        value = Double.NaN;
        ready = false;
        if (source != null) {
            source.reset();
        }
        clear();
    }

    protected static int checkPeriods(int periods) {
        if (periods < 1) {
            throw new IllegalArgumentException("periods must be >= 1, got " + periods);
        }
        return periods;
    }
}
