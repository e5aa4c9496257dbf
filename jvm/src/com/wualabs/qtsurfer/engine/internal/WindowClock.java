package com.wualabs.qtsurfer.engine.internal;

/**
 * The bounds of the window a column loop closes at its row, for a window listener that reads them only
 * when asked ({@code LazyRows}'s rows where each bar closes its own window).
 *
 * <p>Why: on such rows the listener is called at every row, and writing the window's state (armed, start,
 * end, the set's next due time) and the listener's bounds (fired, the window's open and close) around each
 * call was about a quarter of the strategy thread on the sweep grid; a listener asks for its instants a few
 * times a run, if ever. While a clock is set, the listener computes its bounds from it, and anything that
 * reads the window's state first calls {@link #settle}. In {@code engine.internal}, which the sandbox
 * denies: a strategy can neither reach nor move it.
 */
public interface WindowClock {

    /** The end (exclusive) of the window closing at the row in progress: the row's close time plus one. */
    long windowEnd();

    /** The window's period in milliseconds. */
    long period();

    /**
     * Writes the state the general path holds during the call in progress (the window armed on this row's
     * period, the listener's bounds) where it keeps it, and stops the clock: from here on every reader reads
     * the fields, and the loop leaves this case after the call.
     */
    void settle();
}
