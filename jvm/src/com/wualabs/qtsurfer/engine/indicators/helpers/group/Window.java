package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

/**
 * One window: watches a node and fires its listener when an epoch-aligned period closes.
 * State machine (see docs/strategy-semantics.md): unarmed until an event assigns it a period
 * {@code [start, end)}; fires before an event whose time is at or after {@code end} (then re-arms on that
 * event's period) or after a bar whose close reaches {@code end} (then waits for the next event).
 */
final class Window {

    final Node watched;
    final long period;
    final AbstractWindowListener listener;
    long start;
    long end;
    boolean armed;
    double lastClose = Double.NaN;

    Window(Node watched, long period, AbstractWindowListener listener) {
        this.watched = watched;
        this.period = period;
        this.listener = listener;
    }

    void arm(long t) {
        start = startOf(t, period);
        end = start + period;
        armed = true;
    }

    /** The start of the epoch-aligned period of length {@code period} that holds time {@code t}. */
    static long startOf(long t, long period) {
        return Math.floorDiv(t, period) * period;
    }
}
