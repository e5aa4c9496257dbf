package com.wualabs.qtsurfer.engine.runtime;

/**
 * One declared {@code @StrategyProperty}: its key, description, default (null when none), whether it was
 * discovered by reflection on the compiled class (always true here), and the advisory range hints
 * (null when unset).
 */
public record PropertyInfo(String name, String description, String defaultValue, boolean reflected,
                           Double min, Double max, Double step) {
}
