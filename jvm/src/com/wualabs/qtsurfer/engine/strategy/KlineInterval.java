package com.wualabs.qtsurfer.engine.strategy;

import java.time.Duration;

/**
 * Candle widths. In a backtest the bar width is the cadence the data was prepared at, whatever a
 * strategy's {@code getInterval()} returns; the value is informational.
 */
public enum KlineInterval {
    s1(Duration.ofSeconds(1)),
    m1(Duration.ofMinutes(1)),
    m3(Duration.ofMinutes(3)),
    m5(Duration.ofMinutes(5)),
    m15(Duration.ofMinutes(15)),
    m30(Duration.ofMinutes(30)),
    h1(Duration.ofHours(1)),
    h2(Duration.ofHours(2)),
    h4(Duration.ofHours(4)),
    h6(Duration.ofHours(6)),
    h8(Duration.ofHours(8)),
    h12(Duration.ofHours(12)),
    d1(Duration.ofDays(1)),
    d3(Duration.ofDays(3)),
    w1(Duration.ofDays(7));

    private final Duration duration;

    KlineInterval(Duration duration) {
        this.duration = duration;
    }

    public Duration getDuration() {
        return duration;
    }

    public long getMillis() {
        return duration.toMillis();
    }

    /** The code as written in cadences: {@code "1m"}, {@code "4h"}, {@code "1d"}. */
    public String code() {
        String n = name();
        return n.substring(1) + n.charAt(0);
    }

    /** Parses a cadence code such as {@code "1m"}, {@code "4h"} or {@code "1d"} (or a constant name). */
    public static KlineInterval of(String code) {
        for (KlineInterval k : values()) {
            if (k.code().equals(code) || k.name().equals(code)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown kline interval '" + code + "'");
    }
}
