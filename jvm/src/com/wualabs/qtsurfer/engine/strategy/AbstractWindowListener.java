package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.EngineVersion;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.internal.WindowClock;

import java.time.Instant;
import java.util.Objects;

/**
 * A window listener: {@link #onChange} runs once each time a window registered with
 * {@code indicators.window(name, period, listener)} closes. Usually a non-static inner class of the
 * strategy, constructed in {@code setupIndicators} with {@code new MyListener(this, indicators)}.
 *
 * <p>Inside it, {@code emitBuy(price)} / {@code emitSell(price)} / {@code emitSignal(signal)} emit for this
 * listener's instrument; {@code instrument}, {@code indicators} and {@code strategy} are fields.
 */
public abstract class AbstractWindowListener {

    /** The strategy this listener belongs to. */
    protected final AbstractStrategy strategy;
    /** The indicator group of the listener's instrument. */
    protected final InstrumentGroupRTIndicator indicators;
    /** The listener's instrument. */
    protected final Instrument instrument;

    private boolean registered;
    private boolean fired;
    private long prevMillis;
    private long currMillis;
    private Instant prevInstant; // the last one built: valid while it is at prevMillis
    private Instant currInstant; // likewise at currMillis
    private WindowClock clock; // while set, the three fields above are those of its row (see WindowClock)

    protected AbstractWindowListener(AbstractStrategy strategy, InstrumentGroupRTIndicator indicators) {
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.indicators = Objects.requireNonNull(indicators, "indicators");
        this.instrument = indicators.getInstrument();
    }

    /**
     * Called when a window closes.
     *
     * @param store  the instrument's state store, shared by all its listeners
     * @param prev   the watched indicator's value at the previous close of this window (NaN on the first)
     * @param actual the watched indicator's value at this close
     */
    public abstract void onChange(StateStore store, double prev, double actual);

    /** Emits a buy for this listener's instrument. */
    protected void emitBuy(double price) {
        strategy.emitBuy(instrument, price);
    }

    /** Emits a sell for this listener's instrument. */
    protected void emitSell(double price) {
        strategy.emitSell(instrument, price);
    }

    /** Emits a custom signal ({@link BuySignal}, {@link SellSignal}, {@link InfoStrategySignal}). */
    protected void emitSignal(StrategySignal signal) {
        strategy.emitSignal(signal);
    }

    /** A new informational signal for this listener's instrument. */
    protected InfoStrategySignal createInfoSignal() {
        return new InfoStrategySignal(instrument);
    }

    /**
     * When the window that fired opened (its aligned start).
     *
     * @throws IllegalStateException when the listener is not registered on a window, or has not fired yet
     */
    public Instant getPrevInstant() {
        syncClock();
        checkWindow();
        Instant at = prevInstant;
        if (at == null || at.toEpochMilli() != prevMillis) {
            at = Instant.ofEpochMilli(prevMillis);
            prevInstant = at;
        }
        return at;
    }

    /**
     * When the window that fired closed ({@code getPrevInstant()} plus the period).
     *
     * @throws IllegalStateException when the listener is not registered on a window, or has not fired yet
     */
    public Instant getCurrInstant() {
        syncClock();
        checkWindow();
        Instant at = currInstant;
        if (at == null || at.toEpochMilli() != currMillis) {
            at = Instant.ofEpochMilli(currMillis);
            currInstant = at;
        }
        return at;
    }

    public String getEngineVersion() {
        return EngineVersion.getVersion();
    }

    public int getEngineVersionMajor() {
        return EngineVersion.getMajor();
    }

    public int getEngineVersionMinor() {
        return EngineVersion.getMinor();
    }

    private void checkWindow() {
        if (!registered) {
            throw new IllegalStateException("getPrevInstant()/getCurrInstant() need a listener registered with "
                    + "indicators.window(...); " + getClass().getName() + " is not");
        }
        if (!fired) {
            throw new IllegalStateException("the window of " + getClass().getName() + " has not closed yet");
        }
    }

    /** Engine-internal: marks the listener as attached to a window. */
    public final void markWindowRegistered() {
        registered = true;
    }

    /** Engine-internal: records the window bounds and calls {@link #onChange}. */
    public final void dispatchWindowClose(StateStore store, long openMillis, long closeMillis, double prev, double actual) {
        WindowClock c = clock;
        if (c != null) {
            c.settle(); // a close dispatched by another path during a clock's call: the fields from now on
        }
        firedOn(openMillis, closeMillis); // the instants are built when asked for, and again once these moved
        onChange(store, prev, actual);
    }

    /** The bounds of the window that fired last, where the instant getters read them. */
    private void firedOn(long openMillis, long closeMillis) {
        fired = true;
        prevMillis = openMillis;
        currMillis = closeMillis;
    }

    /** The bounds of the clock's row, written where the getters read them, while a clock is set. */
    private void syncClock() {
        WindowClock c = clock;
        if (c != null) {
            long end = c.windowEnd();
            firedOn(end - c.period(), end);
        }
    }

    /** The bounds read from {@code c} from now on, until {@link #endWindowClock} (via {@code StrategyInternals}). */
    void useWindowClock(WindowClock c) {
        clock = c;
    }

    /** The clock stopped, with the bounds of the window that fired last written as {@link #dispatchWindowClose} leaves them. */
    void endWindowClock(long openMillis, long closeMillis) {
        clock = null;
        firedOn(openMillis, closeMillis);
    }
}
