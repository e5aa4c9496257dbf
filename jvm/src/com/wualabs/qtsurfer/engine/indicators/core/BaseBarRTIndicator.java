package com.wualabs.qtsurfer.engine.indicators.core;

/**
 * Base of the built-in bar indicators (see {@link BarRTIndicator}). A bar whose high, low or close is
 * {@code NaN} is ignored; so is a bar with a {@code NaN} volume for indicators that need volume.
 */
public abstract class BaseBarRTIndicator extends BaseRTIndicator implements BarRTIndicator {

    protected BaseBarRTIndicator(RTIndicator source) {
        super(source);
    }

    protected BaseBarRTIndicator() {
        super();
    }

    @Override
    public final double updateBar(double open, double high, double low, double close, double volume) {
        if (high != high || low != low || close != close || (usesVolume() && volume != volume)) {
            return value;
        }
        acceptBar(open != open ? close : open, high, low, close, volume);
        return value;
    }

    @Override
    protected final void accept(double x) {
        acceptBar(x, x, x, x, 1.0);
    }

    @Override
    public boolean wantsBars() {
        return source == null;
    }

    /** Whether a bar needs a volume to be meaningful. */
    protected boolean usesVolume() {
        return false;
    }

    /** Consumes one bar (high, low and close are never NaN). */
    protected abstract void acceptBar(double open, double high, double low, double close, double volume);
}
