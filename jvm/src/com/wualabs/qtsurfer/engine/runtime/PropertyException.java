package com.wualabs.qtsurfer.engine.runtime;

/** A run's properties cannot be applied: unknown key, unparsable value, or a setter that rejected it. */
public class PropertyException extends Exception {

    private static final long serialVersionUID = 1L;

    public PropertyException(String message) {
        super(message);
    }

    public PropertyException(String message, Throwable cause) {
        super(message, cause);
    }
}
