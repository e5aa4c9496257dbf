package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.EngineVersion;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.GroupDriver;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.internal.Notices;
import com.wualabs.qtsurfer.engine.internal.RowClock;
import com.wualabs.qtsurfer.engine.internal.RunSeries;
import com.wualabs.qtsurfer.engine.internal.SignalLog;
import com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The model shared by every strategy base class: one indicator group and one {@link StateStore} per
 * instrument, signal emission, engine setters, the engine version and the {@code log}.
 *
 * <p>Per instrument, on its first data event: {@link #acceptInstrument} decides (once) whether the
 * instrument is processed; if so a group is built and {@link #setupIndicators} runs with it.
 */
public abstract class AbstractStrategy implements Strategy {

    private final Notices notices = new Notices();
    private final SignalLog signals = new SignalLog();

    /** SLF4J-style logger; lines go to the run's notices. */
    protected final StrategyLogger log = new StrategyLogger(notices);

    private final LinkedHashMap<Instrument, InstrumentState> states = new LinkedHashMap<>();
    private final LinkedHashSet<Instrument> tracked = new LinkedHashSet<>();
    private final Set<Instrument> trackedView = Collections.unmodifiableSet(tracked);
    private InstrumentState lastState;

    /** Set by the host before the first event: series its groups may take ahead of the events. */
    private RunSeries runSeries;
    /** How many indicators of this strategy's groups took a series from {@link #runSeries}. */
    private int precomputed;
    /** An event was fed by hand: no indicator replays a series any more ({@link #handFeeding}). */
    private boolean handFed;

    private long eventTime;
    private boolean eventSeen;
    private Instrument currentInstrument;
    /** Set while a column loop keeps the event time in a clock rather than {@link #eventTime}. */
    private RowClock rowClock;

    private ExecutionMode executionMode = ExecutionMode.LONG;
    private double percentGain = Double.NaN;
    private boolean multiEntryEnabled;

    protected AbstractStrategy() {
        StrategyInternals.onConstruct(this);
    }

    /**
     * Registers the indicators, windows and listeners of one instrument. Called once per instrument, on
     * that instrument's first data event, with the instrument's own group.
     */
    protected abstract void setupIndicators(InstrumentGroupRTIndicator indicators);

    /**
     * Whether the strategy processes {@code instrument}. Asked once per instrument, on its first event.
     * The default accepts an instrument whose quote currency passes {@link #acceptCurrency} (the output
     * currency check). Override with {@code return true} to accept everything.
     */
    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return acceptCurrency(instrument.quote());
    }

    /** The output-currency check used by the default {@link #acceptInstrument}; accepts every currency. */
    public boolean acceptCurrency(String currency) {
        return true;
    }

    /** The execution mode for {@code instrument}: the one set with {@link #setExecutionMode}, LONG by default. */
    @Override
    public ExecutionMode getExecutionMode(Instrument instrument) {
        return executionMode;
    }

    /** The execution mode set with {@link #setExecutionMode} (LONG by default). */
    public ExecutionMode getExecutionMode() {
        return executionMode;
    }

    /** Engine setter: the execution mode recorded for the run. */
    public void setExecutionMode(ExecutionMode mode) {
        this.executionMode = Objects.requireNonNull(mode, "executionMode");
    }

    /** Engine setter: the minimum percent gain recorded for the run (NaN = unset). */
    public void setPercentGain(double percentGain) {
        this.percentGain = percentGain;
    }

    public double getPercentGain() {
        return percentGain;
    }

    /** Engine setter: whether several entries may be open at once (recorded for the run). */
    public void setMultiEntryEnabled(boolean enabled) {
        this.multiEntryEnabled = enabled;
    }

    public boolean isMultiEntryEnabled() {
        return multiEntryEnabled;
    }

    /** The instrument's state store (created on demand; never empty). */
    @Override
    public Optional<StateStore> getStateStore(Instrument instrument) {
        return Optional.of(state(instrument).store());
    }

    /** The instruments this strategy currently tracks (those whose indicator group was built), read-only. */
    @Override
    public Set<Instrument> getInstruments() {
        return trackedView;
    }

    /** A read-only view of any tracked instrument's named indicator. Reading it updates nothing. */
    @Override
    public Optional<RTIndicator> getRTIndicator(Instrument instrument, String name) {
        InstrumentState st = states.get(instrument);
        if (st == null || st.group == null) {
            return Optional.empty();
        }
        return st.group.getReadOnly(name);
    }

    /**
     * Marks the start of an event for {@code instrument} at {@code timestamp} (epoch ms): builds the
     * instrument's group (running {@link #setupIndicators}) on its first event.
     */
    public final void updateInstrument(Instrument instrument, long timestamp) {
        beginEvent(instrument, timestamp);
        group(state(instrument));
    }

    /** Emits a buy for {@code instrument} at {@code price}. */
    public void emitBuy(Instrument instrument, double price) {
        record(SignalLog.BUY, instrument, price, null);
    }

    /** Emits a sell for {@code instrument} at {@code price}. */
    public void emitSell(Instrument instrument, double price) {
        record(SignalLog.SELL, instrument, price, null);
    }

    /** Emits a custom signal ({@link BuySignal}, {@link SellSignal}, {@link InfoStrategySignal}). */
    public void emitSignal(StrategySignal signal) {
        Objects.requireNonNull(signal, "signal");
        Map<String, Object> data = signal.getData();
        record((byte) signal.getSide(), signal.getInstrument(), signal.getPrice(),
                data.isEmpty() ? null : Collections.unmodifiableMap(new LinkedHashMap<>(data)));
    }

    /** A new informational signal for {@code instrument}. */
    public InfoStrategySignal createInfoStrategySignal(Instrument instrument) {
        return new InfoStrategySignal(instrument);
    }

    /**
     * Emits an informational signal for the instrument of the event being processed: {@code key} gets
     * {@code values[0]}, then the remaining values are read as alternating key / value pairs
     * ({@code emitInfo("funding", rate, "instrument", symbol)}). A trailing key without value maps to null.
     */
    protected void emitInfo(String key, Object... values) {
        Objects.requireNonNull(key, "key");
        LinkedHashMap<String, Object> data = new LinkedHashMap<>();
        data.put(key, values == null || values.length == 0 ? null : values[0]);
        if (values != null) {
            for (int i = 1; i < values.length; i += 2) {
                data.put(String.valueOf(values[i]), i + 1 < values.length ? values[i + 1] : null);
            }
        }
        record(SignalLog.INFO, currentInstrument, Double.NaN, Collections.unmodifiableMap(data));
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

    // ---------------------------------------------------------------- engine-internal

    private void record(byte side, Instrument instrument, double price, Map<String, Object> data) {
        if (!eventSeen) {
            notices.add("a signal emitted before the first data event was ignored");
            return;
        }
        if (side != SignalLog.INFO && (Double.isNaN(price) || Double.isInfinite(price))) {
            notices.add("a " + (side == SignalLog.BUY ? "buy" : "sell") + " signal with a non-finite price ("
                    + price + ") was ignored");
            return;
        }
        RowClock clock = rowClock;
        boolean fromClock = clock != null && clock.current();
        long time = fromClock ? clock.time() : eventTime;
        Instrument current = fromClock ? clock.instrument() : currentInstrument;
        signals.add(time, side, price, instrument == null ? current : instrument, data);
    }

    final InstrumentState state(Instrument instrument) {
        InstrumentState st = lastState;
        if (st != null && (st.instrument == instrument || st.instrument.equals(instrument))) {
            return st;
        }
        st = states.get(Objects.requireNonNull(instrument, "instrument"));
        if (st == null) {
            st = new InstrumentState(instrument);
            states.put(instrument, st);
        }
        lastState = st;
        return st;
    }

    final InstrumentGroupRTIndicator group(InstrumentState st) {
        InstrumentGroupRTIndicator g = st.group;
        if (g == null) {
            g = new InstrumentGroupRTIndicator(this, st.instrument);
            st.group = g;
            tracked.add(st.instrument);
            setupIndicators(g);
            precomputed += g.useSeries(runSeries);
        }
        return g;
    }

    /** The group of {@code instrument}, built on first use. */
    final InstrumentGroupRTIndicator groupOf(Instrument instrument) {
        return group(state(instrument));
    }

    final boolean accepted(Instrument instrument) {
        InstrumentState st = state(instrument);
        if (st.accepted == 0) {
            st.accepted = acceptInstrument(instrument) ? 1 : -1;
        }
        return st.accepted > 0;
    }

    final void useSeries(RunSeries run) {
        runSeries = run;
    }

    /**
     * Before an event fed by hand ({@code updateIndicators}): series assume that each row is one
     * event of the group, so every replaying indicator is brought up to date and steps from now
     * on, and no group built later takes series.
     */
    final void handFeeding() {
        if (handFed) {
            return;
        }
        handFed = true;
        runSeries = null;
        for (InstrumentState st : states.values()) {
            if (st.group != null) {
                st.group.endReplay();
            }
        }
    }

    final int precomputedIndicators() {
        return precomputed;
    }

    final long steplessEvents() {
        long n = 0;
        for (InstrumentState st : states.values()) {
            if (st.group != null) {
                n += GroupDriver.steplessEvents(st.group);
            }
        }
        return n;
    }

    final void beginEvent(Instrument instrument, long timestamp) {
        eventTime = timestamp;
        eventSeen = true;
        currentInstrument = instrument;
        RowClock clock = rowClock;
        if (clock != null) {
            clock.begunByHand = clock.row;
        }
    }

    /**
     * From now on the event (time and instrument) is {@code clock}'s row's, except for the rest of a row
     * during which an event is begun by hand, until {@link #endRowClock}.
     */
    final void useRowClock(RowClock clock) {
        rowClock = clock;
    }

    /**
     * Writes the clock's row back as the event, unless {@code keepByHand} and an event was begun by hand
     * during that row (then the event fields already hold what the general path would have left).
     */
    final void endRowClock(RowClock clock, boolean keepByHand) {
        if (rowClock != clock) {
            return;
        }
        rowClock = null;
        if (!keepByHand || clock.current()) {
            eventTime = clock.time();
            eventSeen = true;
            currentInstrument = clock.instrument();
        }
    }

    final Notices notices() {
        return notices;
    }

    final SignalLog signals() {
        return signals;
    }

    /** Per-instrument state. */
    static final class InstrumentState {
        final Instrument instrument;
        InstrumentGroupRTIndicator group;
        StateStore store;
        int accepted;

        InstrumentState(Instrument instrument) {
            this.instrument = instrument;
        }

        StateStore store() {
            if (store == null) {
                store = new StateStore();
            }
            return store;
        }
    }
}
