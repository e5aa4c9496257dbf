package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Typed access to request fields; a missing or mistyped field is a {@code bad_request}. */
final class Requests {
    private Requests() {}

    private static HostException bad(String message) {
        return new HostException(HostException.BAD_REQUEST, message);
    }

    static String string(Map<String, Object> req, String key) throws HostException {
        Object v = req.get(key);
        if (!(v instanceof String s)) {
            throw bad("field '" + key + "' must be a string");
        }
        return s;
    }

    static String optionalString(Map<String, Object> req, String key) throws HostException {
        return req.get(key) == null ? null : string(req, key);
    }

    static long longValue(Map<String, Object> req, String key, long fallback)
            throws HostException {
        Object v = req.get(key);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof Number n)) {
            throw bad("field '" + key + "' must be a number");
        }
        return n.longValue();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object v, String what) throws HostException {
        if (!(v instanceof Map<?, ?>)) {
            throw bad("field '" + what + "' must be an object");
        }
        return (Map<String, Object>) v;
    }

    /** Property values travel as strings; numbers and booleans are accepted and stringified. */
    static Map<String, String> stringMap(Object v) throws HostException {
        Map<String, String> out = new LinkedHashMap<>();
        if (v == null) {
            return out;
        }
        for (Map.Entry<String, Object> e : map(v, "params").entrySet()) {
            Object value = e.getValue();
            if (value instanceof Map<?, ?> || value instanceof List<?>) {
                throw new HostException(HostException.BAD_REQUEST,
                        "parameter '" + e.getKey() + "' must be a scalar");
            }
            out.put(e.getKey(), value == null ? null : String.valueOf(value));
        }
        return out;
    }

    static Instrument instrument(Object v) throws HostException {
        Map<String, Object> m = map(v, "instrument");
        String base = string(m, "base");
        String quote = string(m, "quote");
        String settle = optionalString(m, "settle");
        return settle == null ? new Instrument(base, quote) : new Instrument(base, quote, settle);
    }

    /** The half-open row range [start, end) within {@code rows}; all rows when absent. */
    static int[] rows(Object v, int rows) throws HostException {
        if (v == null) {
            return new int[] {0, rows};
        }
        if (!(v instanceof List<?> l) || l.size() != 2 || !(l.get(0) instanceof Number a)
                || !(l.get(1) instanceof Number b)) {
            throw new HostException(HostException.BAD_REQUEST, "field 'rows' must be [start, end]");
        }
        long start = a.longValue();
        long end = b.longValue();
        if (start < 0 || end < start || end > rows) {
            throw new HostException(HostException.BAD_REQUEST,
                    "row range [" + start + ", " + end + ") is outside the " + rows + " rows");
        }
        return new int[] {(int) start, (int) end};
    }
}
