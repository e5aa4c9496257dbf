package com.wualabs.qtsurfer.engine.indicators.core;

import com.wualabs.qtsurfer.engine.strategy.DisplayHint;
import com.wualabs.qtsurfer.engine.strategy.Resettable;

import java.util.Map;

/**
 * A real-time indicator, updated incrementally once per data event with its source value.
 *
 * <p>Contract: {@link #update(double)} consumes one value and returns the new current value (the same as
 * {@link #getValue()} afterwards). {@link #isReady()} gates warm-up. Built-in indicators return
 * {@code NaN} from {@link #getValue()} until ready and ignore {@code NaN} inputs.
 */
public interface RTIndicator extends Resettable {

    /** The current value. */
    double getValue();

    /** Consumes one value and returns the new current value. */
    double update(double newValue);

    /** True once warm-up is over. Defaults to true. */
    default boolean isReady() {
        return true;
    }

    /** Clears the state. Defaults to doing nothing. */
    @Override
    default void reset() {
    }

    /** {@link #update(double)} with a boxed number. */
    default double update(Number newValue) {
        return update(newValue.doubleValue());
    }

    /** {@link #update(double)} with another indicator's current value. */
    default double update(RTIndicator source) {
        return update(source.getValue());
    }

    /** A read-only view: reads delegate to this indicator; update and reset do nothing. */
    default RTIndicator ro() {
        return ReadOnlyRTIndicator.of(this);
    }

    /** Metadata attached to the indicator (never null). */
    default Map<String, Object> getMeta() {
        return Map.of();
    }

    /** The name the indicator is published under, when known. */
    default String getId() {
        return null;
    }

    /** How the value should be displayed. */
    default DisplayHint getDisplayHint() {
        return DisplayHint.NONE;
    }

    /** True when the indicator is hidden from signal reporting metadata (published name starts with {@code _}). */
    default boolean isHidden() {
        String id = getId();
        return id != null && id.startsWith("_");
    }
}
