package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import java.util.Arrays;

/**
 * The windows of one group and when they fire (see {@link Window} and docs/strategy-semantics.md §7).
 * {@link #nextDue} keeps the per-event cost at one comparison: it is the earliest period end of the armed
 * windows, {@code Long.MIN_VALUE} while a window is unarmed, {@code Long.MAX_VALUE} without windows.
 */
final class WindowSet {

    private final InstrumentGroupRTIndicator group;
    private Window[] windows = new Window[2];
    private int count;
    long nextDue = Long.MAX_VALUE;
    /** While set, the one window's state is read from it ({@code Long.MIN_VALUE} above meanwhile): settle first. */
    OwnWindowClock clock;

    WindowSet(InstrumentGroupRTIndicator group) {
        this.group = group;
    }

    int count() {
        return count;
    }

    /** The first window registered (the only one when {@link #count} is 1). */
    Window first() {
        return windows[0];
    }

    void add(Window w) {
        if (clock != null) {
            clock.settle();
        }
        if (count == windows.length) {
            windows = Arrays.copyOf(windows, count * 2);
        }
        windows[count++] = w;
        nextDue = Long.MIN_VALUE;
    }

    /**
     * Whether a window may be due at {@code t} (one comparison); the own-window clock, if any, settled first,
     * since {@link #nextDue} is {@code Long.MIN_VALUE} while it runs.
     */
    private boolean due(long t) {
        if (t < nextDue) {
            return false;
        }
        if (clock != null) {
            clock.settle();
            return t >= nextDue;
        }
        return true;
    }

    /** Before an event assigned to time {@code t} is applied: fires every window whose period ended. */
    void beforeEvent(long t) {
        if (!due(t)) {
            return;
        }
        int n = count;
        Window[] ws = windows;
        long next = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Window w = ws[i];
            if (!w.armed) {
                w.arm(t);
            } else if (t >= w.end) {
                fire(w);
                w.arm(t);
            }
            if (w.end < next) {
                next = w.end;
            }
        }
        nextDue = count != n ? Long.MIN_VALUE : next;
    }

    /** Where a bar closing at {@code closeTs} ends (exclusive): the millisecond after, at most {@code Long.MAX_VALUE}. */
    static long barEnd(long closeTs) {
        return closeTs == Long.MAX_VALUE ? closeTs : closeTs + 1;
    }

    /** After a bar whose data reaches {@code tEnd} (exclusive) was applied: fires the windows it completed. */
    void afterBar(long tEnd) {
        if (!due(tEnd)) {
            return;
        }
        int n = count;
        Window[] ws = windows;
        long next = Long.MAX_VALUE;
        boolean unarmed = false;
        for (int i = 0; i < n; i++) {
            Window w = ws[i];
            if (w.armed && tEnd >= w.end) {
                fire(w);
                w.armed = false;
            }
            if (!w.armed) {
                unarmed = true;
            } else if (w.end < next) {
                next = w.end;
            }
        }
        nextDue = unarmed || count != n ? Long.MIN_VALUE : next;
    }

    private void fire(Window w) {
        fire(w, w.watched.now());
    }

    /**
     * Closes {@code w}'s period with the watched value {@code actual}: its listener's {@code onChange}
     * ({@code LazyRows.fire} writes the same three lines out).
     */
    private void fire(Window w, double actual) {
        double prev = w.lastClose;
        w.lastClose = actual;
        w.listener.dispatchWindowClose(group.store(), w.start, w.end, prev, actual);
    }
}
