package com.wualabs.qtsurfer.engine.runtime;

/**
 * One declared {@code @StrategyProperty}: its key, description, default (null when none), whether it was
 * discovered by reflection on the compiled class (always true here), and the advisory range hints
 * (null when unset). {@code type} is the Java type the value is injected as ({@code int}, {@code double},
 * {@code boolean}, {@code java.lang.String}, ...; null when the property cannot be injected), so sweeps can
 * coerce axis values to it before any run.
 */
public record PropertyInfo(String name, String description, String defaultValue, boolean reflected,
                           Double min, Double max, Double step, String type) {
}
