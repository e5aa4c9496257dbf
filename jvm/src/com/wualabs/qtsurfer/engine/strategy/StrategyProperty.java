package com.wualabs.qtsurfer.engine.strategy;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a configurable property on an instance field (the engine writes it, through the JavaBean
 * setter {@code set<Field>} when one exists) or directly on a one-argument setter method.
 *
 * <p>{@code name} is the key used by run params and sweep axes (dots allowed; defaults to the field
 * name). {@code defaultValue} is parsed to the property's type ({@code ""} means no default).
 * {@code min}/{@code max}/{@code step} are advisory hints for sweep grids, never checked ({@code NaN}
 * means unset). Order at run start: constructor, then every default, then the run's params.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface StrategyProperty {

    String name() default "";

    String description() default "";

    String defaultValue() default "";

    double min() default Double.NaN;

    double max() default Double.NaN;

    double step() default Double.NaN;
}
