package com.wualabs.qtsurfer.engine.internal;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

/**
 * The row a column loop is at, for the strategy's event time and the frame's close, which read it
 * only when asked ({@code LazyRows}'s rows where each bar closes its own window).
 *
 * <p>Why: on such rows the listener is called at every row, and writing the event (time, instrument,
 * "seen") and the frame (close, primary, kline flags) before each call was about a quarter of the
 * strategy thread on the sweep grid; a signal or a read of the close needs them only a few times a
 * run. The loop writes one int a row here instead, and each reader asks this clock while it is set.
 * In {@code engine.internal}, which the sandbox denies: a strategy can neither reach nor move it.
 */
public final class RowClock {
    private final long[] times;
    private final double[] closes;
    private final Instrument instrument;
    /** The row in progress. */
    public int row;
    /**
     * The row during whose listener call an event was begun by hand (a listener calling the strategy's
     * {@code update(kline)} for another instrument): for the rest of that row the strategy's own event
     * fields hold that event, as they would on the general path; the next row's number ends it without a
     * write or a check.
     */
    public int begunByHand = -1;
    /** The bits of the rows' times and closes that the loop read as it passed them (kept so that the JIT keeps the reads). */
    public long passed;

    public RowClock(long[] times, double[] closes, Instrument instrument) {
        this.times = times;
        this.closes = closes;
        this.instrument = instrument;
    }

    /** The instrument of the rows. */
    public Instrument instrument() {
        return instrument;
    }

    /** Whether the row in progress still reads its event from here (no event was begun by hand during it). */
    public boolean current() {
        return begunByHand != row;
    }

    /** The event time of the row in progress. */
    public long time() {
        return times[row];
    }

    /** The close of the row in progress. */
    public double close() {
        return closes[row];
    }
}
