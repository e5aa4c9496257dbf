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
