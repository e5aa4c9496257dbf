package com.wualabs.qtsurfer.engine.indicators.core;

import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

import java.util.Map;

/**
 * A read-only view of an indicator: every read delegates, {@link #update(double)} returns the current
 * value without changing anything and {@link #reset()} does nothing. Composing indicators through a view
 * cannot advance shared state.
 */
public final class ReadOnlyRTIndicator implements RTIndicator {

    private final RTIndicator target;

    private ReadOnlyRTIndicator(RTIndicator target) {
        this.target = target;
    }

    /** A view of {@code target} (the same object when it already is a view). */
    public static RTIndicator of(RTIndicator target) {
        if (target instanceof ReadOnlyRTIndicator) {
            return target;
        }
        return new ReadOnlyRTIndicator(java.util.Objects.requireNonNull(target, "target"));
    }

    @Override
    public double getValue() {
        return target.getValue();
    }

    @Override
    public double update(double newValue) {
        return target.getValue();
    }

    @Override
    public boolean isReady() {
        return target.isReady();
    }

    @Override
    public void reset() {
    }

    @Override
    public RTIndicator ro() {
        return this;
    }

    @Override
    public Map<String, Object> getMeta() {
        return target.getMeta();
    }

    @Override
    public String getId() {
        return target.getId();
    }

    @Override
    public DisplayHint getDisplayHint() {
        return target.getDisplayHint();
    }

    @Override
    public boolean isHidden() {
        return target.isHidden();
    }

    @Override
    public String toString() {
        return "ro(" + target + ")";
    }
}
