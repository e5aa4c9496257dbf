package com.wualabs.backtestd.host;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts strategy info data (any objects a strategy put on a signal) into JSON-ready values.
 * Runs on the guarded worker thread because {@code toString()} of a user object is user code.
 * Depth, size and string length are capped so one signal cannot blow up the answer, and one
 * converter holds the budget of a whole run: past {@code budget} characters of JSON the run
 * fails with {@code output_limit} instead of building an answer that floods the worker and the
 * API process.
 */
final class JsonSafe {
    private static final int MAX_DEPTH = 8;
    private static final int MAX_ITEMS = 10_000;
    private static final int MAX_STRING = 8_192;

    private final long budget;
    private long used;

    JsonSafe(long budget) {
        this.budget = budget;
    }

    /** Approximate JSON characters converted so far. */
    long used() {
        return used;
    }

    Object of(Object value) throws HostException {
        return of(value, 0);
    }

    private Object of(Object v, int depth) throws HostException {
        spend(8);
        if (v == null || v instanceof Boolean || v instanceof Long || v instanceof Double) {
            return v;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        if (v instanceof Enum<?> e) {
            return text(e.name());
        }
        if (depth >= MAX_DEPTH) {
            return text(v);
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (out.size() >= MAX_ITEMS) {
                    break;
                }
                out.put(text(e.getKey()), of(e.getValue(), depth + 1));
            }
            return out;
        }
        if (v instanceof Iterable<?> items) {
            List<Object> out = new ArrayList<>();
            for (Object item : items) {
                if (out.size() >= MAX_ITEMS) {
                    break;
                }
                out.add(of(item, depth + 1));
            }
            return out;
        }
        if (v.getClass().isArray()) {
            List<Object> out = new ArrayList<>();
            int n = Math.min(Array.getLength(v), MAX_ITEMS);
            for (int i = 0; i < n; i++) {
                out.add(of(Array.get(v, i), depth + 1));
            }
            return out;
        }
        return text(v);
    }

    private String text(Object v) throws HostException {
        String s = String.valueOf(v);
        if (s.length() > MAX_STRING) {
            s = s.substring(0, MAX_STRING) + "...";
        }
        spend(s.length() + 2L);
        return s;
    }

    private void spend(long chars) throws HostException {
        used += chars;
        if (used > budget) {
            throw new HostException(HostException.OUTPUT_LIMIT, String.format("the strategy's "
                    + "info signals need more than %d MiB of data; a run may carry at most %d MiB "
                    + "of info-signal fields: emit fewer or smaller info signals", budget >> 20,
                    budget >> 20)).with("limit", "info_bytes");
        }
    }
}
