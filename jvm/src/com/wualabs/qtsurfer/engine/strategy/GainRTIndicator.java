package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Counts consecutive updates in which the input rose ({@code x > previous}). A fall resets the count to 0;
 * a flat update resets it too when {@code resetPeriodsOnSustain} is true (the default) and keeps it
 * otherwise. The value is the count; {@link #getPeriodCount()} returns 0 when the streak just ended (or
 * none started). Ready from the first input.
 */
public class GainRTIndicator extends BaseRTIndicator {

    private final boolean resetPeriodsOnSustain;
    private double prev = Double.NaN;
    private int count;

    public GainRTIndicator() {
        this(null, true);
    }

    public GainRTIndicator(boolean resetPeriodsOnSustain) {
        this(null, resetPeriodsOnSustain);
    }

    public GainRTIndicator(RTIndicator source) {
        this(source, true);
    }

    public GainRTIndicator(RTIndicator source, boolean resetPeriodsOnSustain) {
        super(source);
        this.resetPeriodsOnSustain = resetPeriodsOnSustain;
        withDisplayHint(DisplayHint.COUNT);
    }

    /** True when {@code x} continues the streak relative to {@code previous}. */
    protected boolean advances(double x, double previous) {
        return x > previous;
    }

    @Override
    protected final void accept(double x) {
        double p = prev;
        prev = x;
        if (p == p) {
            if (advances(x, p)) {
                count++;
            } else if (x != p || resetPeriodsOnSustain) {
                count = 0;
            }
        }
        value = count;
        ready = true;
    }

    /** The current streak length (0 = the streak just ended, or none started). */
    public int getPeriodCount() {
        return count;
    }

    public boolean isResetPeriodsOnSustain() {
        return resetPeriodsOnSustain;
    }

    @Override
    protected final void clear() {
        prev = Double.NaN;
        count = 0;
    }
}
