package com.wualabs.qtsurfer.engine.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Engine-internal: the notices of one run (engine notices and log lines), in the order first seen.
 * Identical messages are counted rather than repeated; at most {@link #MAX_DISTINCT} distinct messages
 * are kept, the rest are counted and reported in one closing line. Adding is cheap once the cap is hit.
 */
public final class Notices {

    /** Maximum number of distinct messages kept per run. */
    public static final int MAX_DISTINCT = 200;
    /** Longer messages are cut to this many characters. */
    public static final int MAX_LENGTH = 1_000;

    private final LinkedHashMap<String, int[]> messages = new LinkedHashMap<>();
    private long suppressed;

    /** True when another distinct message would be dropped (callers can skip formatting). */
    public boolean full() {
        return messages.size() >= MAX_DISTINCT;
    }

    public void add(String message) {
        if (message != null && message.length() > MAX_LENGTH) {
            message = message.substring(0, MAX_LENGTH) + "... (" + (message.length() - MAX_LENGTH)
                    + " more characters)";
        }
        int[] count = messages.get(message);
        if (count != null) {
            count[0]++;
            return;
        }
        if (messages.size() >= MAX_DISTINCT) {
            suppressed++;
            return;
        }
        messages.put(message, new int[] {1});
    }

    /** Counts a message that was not even formatted because the cap was reached. */
    public void suppress() {
        suppressed++;
    }

    public boolean isEmpty() {
        return messages.isEmpty() && suppressed == 0;
    }

    /** A snapshot: each message once, {@code " (repeated N times)"} appended when seen N > 1 times. */
    public List<String> snapshot() {
        List<String> out = new ArrayList<>(messages.size() + 1);
        for (Map.Entry<String, int[]> e : messages.entrySet()) {
            int n = e.getValue()[0];
            out.add(n == 1 ? e.getKey() : e.getKey() + " (repeated " + n + " times)");
        }
        if (suppressed > 0) {
            out.add(suppressed + " further notice(s) suppressed (limit " + MAX_DISTINCT + " distinct notices per run)");
        }
        return out;
    }
}
