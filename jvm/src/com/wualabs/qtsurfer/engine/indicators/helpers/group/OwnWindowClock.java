package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.internal.RowClock;
import com.wualabs.qtsurfer.engine.internal.WindowClock;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;

/**
 * The one window of a group whose rows each close their own window ({@code LazyRows.ownWindows}), its
 * state and its listener's bounds read from the row in progress instead of written around every call.
 *
 * <p>While {@link #live}, the window's fields hold what the general path leaves between two calls (not
 * armed, the set's next due time {@code Long.MIN_VALUE}) except its stale {@code start} and {@code end};
 * during a call, the general path would hold the window armed on the row's period and the listener's bounds
 * of that period. Every reader of that state asks first: {@link WindowSet} (an event fed by hand, a window
 * added) and the listener's instant getters and {@code dispatchWindowClose}. The loop checks {@link #live}
 * after every call and leaves when a reader settled it.
 */
final class OwnWindowClock implements WindowClock {

    private final RowClock rows;
    private final Window window;
    private final WindowSet set;
    /** Whether the state is still read from here (no reader settled it into the fields). */
    boolean live = true;

    /**
     * Hooks the clock into {@code set} and the window's listener. The caller guarantees the state between two
     * calls already: {@code window} not armed, the set's next due time {@code Long.MIN_VALUE}.
     */
    OwnWindowClock(RowClock rows, Window window, WindowSet set) {
        this.rows = rows;
        this.window = window;
        this.set = set;
        set.clock = this;
        StrategyInternals.useWindowClock(window.listener, this);
    }

    @Override
    public long windowEnd() {
        return rows.time() + 1; // the row's close time: the bar is its own window
    }

    @Override
    public long period() {
        return window.period;
    }

    @Override
    public void settle() {
        if (!live) {
            return;
        }
        long stop = windowEnd();
        unhook(stop);
        window.armed = true;
        window.start = stop - window.period;
        window.end = stop;
        set.nextDue = stop;
    }

    /**
     * After the loop's last call returned: the fields as the general path leaves them after that call, its
     * state during the call ({@link #settle}, unless a reader did already) then the window disarmed. The loop
     * called the listener at least once ({@code rows.row} is that row).
     */
    void end() {
        settle();
        window.armed = false;
        set.nextDue = Long.MIN_VALUE;
    }

    private void unhook(long stop) {
        live = false;
        set.clock = null;
        StrategyInternals.endWindowClock(window.listener, stop - window.period, stop);
    }
}
