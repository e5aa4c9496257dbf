package com.wualabs.qtsurfer.engine.strategy;

/**
 * Implemented by a strategy that takes commands while it runs live ({@code POST
 * /live/{runId}/commands}). A strategy that does not implement it is refused commands.
 *
 * <p>A command is delivered once, between two market updates, at the run's current market time:
 * signals emitted from {@link #onCommand} are stamped with the time of the last update the
 * strategy processed (a signal emitted before the first update is ignored, as anywhere else).
 * Backtests never deliver commands.
 */
public interface CommandRequestHandler {

    /** Handles one command; an exception ends the run as one thrown from {@code update} does. */
    void onCommand(CommandRequest request);
}
