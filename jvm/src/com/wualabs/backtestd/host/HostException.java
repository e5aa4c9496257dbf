package com.wualabs.backtestd.host;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request that ends in a structured error answer.
 *
 * <p>The {@code kind} is the contract with the Python client ({@code RunFailure.kind}); the
 * details travel as extra JSON fields so that, for example, a property error can list the declared
 * names and a user exception can carry the user's stack frames.
 */
final class HostException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Error kinds understood by the Python client. */
    static final String USER_EXCEPTION = "user_exception";
    static final String LIMIT_EXCEEDED = "limit_exceeded";
    static final String OUT_OF_MEMORY = "out_of_memory";
    static final String STACK_OVERFLOW = "stack_overflow";
    static final String PROPERTY_ERROR = "property_error";
    static final String SANDBOX_VIOLATION = "sandbox_violation";
    static final String OUTPUT_LIMIT = "output_limit";
    static final String BAD_REQUEST = "bad_request";
    static final String INTERNAL = "internal_error";

    private final String kind;
    private final Map<String, Object> details = new LinkedHashMap<>();
    private final boolean fatal;

    HostException(String kind, String message) {
        this(kind, message, false);
    }

    /** {@code fatal} means the host must exit after answering (its state cannot be trusted). */
    HostException(String kind, String message, boolean fatal) {
        super(message);
        this.kind = kind;
        this.fatal = fatal;
    }

    HostException with(String key, Object value) {
        details.put(key, value);
        return this;
    }

    String kind() {
        return kind;
    }

    boolean fatal() {
        return fatal;
    }

    /** The JSON object sent as {@code error} in the answer. */
    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", kind);
        m.put("message", getMessage());
        m.putAll(details);
        if (fatal) {
            m.put("fatal", true); // the host exits after this answer; the client restarts it
        }
        return m;
    }
}
