package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Common scaffolding for indicators: a {@code value} field returned by {@link #getValue()} and metadata
 * ({@link #getId()}, {@link #getDisplayHint()}, {@link #getMeta()}, {@link #isHidden()}), set with the
 * builder setters {@link #withMeta} and {@link #withDisplayHint}. The id is the name the indicator is
 * published under; the indicator group sets it on registration.
 */
public abstract class AbstractRTIndicator implements RTIndicator {

    /** The current value; {@code NaN} until the indicator has produced one. */
    protected double value = Double.NaN;

    private String id;
    private DisplayHint displayHint = DisplayHint.NONE;
    private Map<String, Object> meta;

    @Override
    public double getValue() {
        return value;
    }

    @Override
    public String getId() {
        return id;
    }

    /** Sets the published name. Called by the indicator group on registration. */
    public AbstractRTIndicator withId(String id) {
        this.id = id;
        return this;
    }

    @Override
    public DisplayHint getDisplayHint() {
        return displayHint;
    }

    /** Sets the display hint and returns this indicator. */
    public AbstractRTIndicator withDisplayHint(DisplayHint hint) {
        this.displayHint = Objects.requireNonNull(hint, "hint");
        return this;
    }

    @Override
    public Map<String, Object> getMeta() {
        return meta == null ? Map.of() : Collections.unmodifiableMap(meta);
    }

    /** Attaches one metadata entry and returns this indicator. */
    public AbstractRTIndicator withMeta(String key, Object value) {
        if (meta == null) {
            meta = new LinkedHashMap<>();
        }
        meta.put(Objects.requireNonNull(key, "key"), value);
        return this;
    }

    /** Attaches every entry of {@code entries} and returns this indicator. */
    public AbstractRTIndicator withMeta(Map<String, ?> entries) {
        for (Map.Entry<String, ?> e : entries.entrySet()) {
            withMeta(e.getKey(), e.getValue());
        }
        return this;
    }

    @Override
    public String toString() {
        String n = getClass().getSimpleName();
        return (id == null ? n : n + "[" + id + "]") + "=" + getValue();
    }
}
