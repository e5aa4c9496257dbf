package com.wualabs.qtsurfer.engine.indicators.helpers;

import java.time.Duration;

/**
 * Home of the {@link WindowTime} periods used by {@code indicators.window(name, WindowTime.s1, listener)}.
 * Windows themselves are created by the indicator group (see docs/strategy-semantics.md for when they fire).
 */
public final class WindowTimeRTIndicator {

    private WindowTimeRTIndicator() {
    }

    /** Window periods: 1 s, 5 s, 10 s, 30 s, 1 min, 3 min, 5 min. */
    public enum WindowTime {
        s1(1_000L),
        s5(5_000L),
        s10(10_000L),
        s30(30_000L),
        m1(60_000L),
        m3(180_000L),
        m5(300_000L);

        private final long millis;

        WindowTime(long millis) {
            this.millis = millis;
        }

        public long getMillis() {
            return millis;
        }

        public Duration getDuration() {
            return Duration.ofMillis(millis);
        }

        /** The constant whose period is {@code seconds}, or null. */
        public static WindowTime ofSeconds(long seconds) {
            for (WindowTime w : values()) {
                if (w.millis == seconds * 1000L) {
                    return w;
                }
            }
            return null;
        }
    }
}
