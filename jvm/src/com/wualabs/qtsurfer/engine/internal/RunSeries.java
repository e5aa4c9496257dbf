package com.wualabs.qtsurfer.engine.internal;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.SmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

import java.nio.DoubleBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Engine-internal: what a run's indicator group needs to take the series of its data-fed
 * indicators ahead of the events instead of stepping them: the run's columns by event-frame field,
 * and the host's {@link SeriesCache}. Event {@code e} of the run is row {@code firstRow + e} of
 * every column: the host attaches one only to runs whose every row is one event of one group (the
 * fast paths of single-source strategies).
 *
 * <p>A series holds, for each event, the value an indicator built by {@code fresh} has after being
 * updated with the field's value at every event so far, NaN values skipped: exactly what the
 * group's node would hold after stepping that event, since it is the same code fed the same
 * values in the same order. A node fed by another node that holds the field (a {@code price}
 * node) sees that node's value, which keeps the field's latest non-NaN value through NaN events:
 * such a series is computed {@code held}, from that value at every event.
 *
 * <p>The series it hands out stay the request's until {@link #release} (or {@link #abandon}): the cache
 * computes a new series into a dropped one only once no request holds it ({@link SeriesCache}).
 */
public final class RunSeries {

    /** Values read from a column at a time while a series is computed. */
    private static final int CHUNK = 4096;

    private final SeriesCache cache;
    private final String scope;
    private final Instrument instrument;
    private final int events;
    private final int firstRow;
    private final Map<Integer, DoubleBuffer> columns = new HashMap<>();
    private final List<double[]> handedOut = new ArrayList<>();

    /**
     * @param scope      identifies the data, the rows and the strategy classes: runs share a series
     *                   only when their scopes are equal
     * @param instrument the run's instrument (other groups are not fed by these columns)
     * @param firstRow   the row of event 0
     * @param events     how many events the run is fed
     */
    public RunSeries(SeriesCache cache, String scope, Instrument instrument, int firstRow, int events) {
        this.cache = cache;
        this.scope = scope;
        this.instrument = instrument;
        this.firstRow = firstRow;
        this.events = events;
    }

    /** Declares that the frame's field {@code code} holds {@code values[firstRow + e]} at event e. */
    public RunSeries field(int code, DoubleBuffer values) {
        columns.put(code, values);
        return this;
    }

    /** How many events the series cover (one a row from the first). */
    public int events() {
        return events;
    }

    public Instrument instrument() {
        return instrument;
    }

    /** True when field {@code code} is read from a column and its series are small enough to keep. */
    public boolean covers(int code) {
        return columns.containsKey(code) && cache.fits(events);
    }

    /**
     * How many series one run may take: together they hold at most half the cache's budget (the
     * cache's own entries are soft, a run's are not), so a run with many indicators over long
     * data keeps the rest stepping instead of filling the heap.
     */
    public int maxSeriesPerRun() {
        return (int) Math.min(Integer.MAX_VALUE, cache.budgetBytes() / 2 / (8L * Math.max(1, events) + 16));
    }

    /**
     * Feeds {@code ind} what a node fed field {@code code} got at each of the first {@code n}
     * events (the field's value, NaN skipped; or with {@code held} its latest non-NaN value) and
     * returns the value the node then holds (NaN if it was fed nothing). Reads the column a chunk
     * at a time: a run that reaches a replayed indicator late allocates no copy of its inputs.
     */
    public double feed(RTIndicator ind, int code, boolean held, int n) {
        return run(columns.get(code), held, ind, n, null);
    }

    /**
     * The series of the indicator {@code fresh} builds (described by {@code indicatorKey}, which
     * must name its class and every parameter) fed field {@code code}: from the cache, or computed
     * now and cached. Null when the field is not read from a column.
     */
    public synchronized double[] series(int code, boolean held, String indicatorKey,
            Supplier<RTIndicator> fresh) {
        DoubleBuffer column = columns.get(code);
        if (column == null || !cache.fits(events)) {
            return null;
        }
        String key = scope + '|' + firstRow + '|' + events + '|' + code + (held ? "|held|" : "|") + indicatorKey;
        double[] series = cache.take(key);
        if (series == null) {
            series = cache.blank(events);
            handedOut.add(series);
            run(column, held, fresh.get(), events, series);
            cache.put(key, series);
        } else {
            handedOut.add(series);
        }
        return series;
    }

    /**
     * The request is over and its code has stopped: the series handed out are no longer its own (the
     * cache may compute another series into one it has dropped). Idempotent.
     */
    public synchronized void release() {
        for (double[] s : handedOut) {
            cache.release(s);
        }
        handedOut.clear();
    }

    /**
     * The request ended in doubt (its code may still be running): its series are let go of without
     * ever being computed into again. Idempotent.
     */
    public synchronized void abandon() {
        for (double[] s : handedOut) {
            cache.abandon(s);
        }
        handedOut.clear();
    }

    /**
     * Feeds {@code ind} the first {@code n} events' inputs; {@code out} gets each value after.
     *
     * <p>The SMA and the EMA each have a loop of their own, so that each loop's call of
     * {@code update} has one receiver class, which the JIT inlines whatever else the host has run.
     * With one loop for all, a host that had computed EMA series for other users' strategies called
     * a sweep's SMA through the virtual table for every value: a sweep after six other strategies
     * took 1.16-1.23 times as long as before them, 1.02-1.05 with a loop each (docs/engine-host.md,
     * "Profile pollution"). The same calls in the same order: the same values. The SMA's and the EMA's loops are
     * their own ({@code updateAll}): the same operations with the indicator's state in locals.
     */
    private double run(DoubleBuffer column, boolean held, RTIndicator ind, int n, double[] out) {
        double[] chunk = new double[Math.max(1, Math.min(CHUNK, n))];
        double v = Double.NaN;
        double last = Double.NaN;
        for (int at = 0; at < n; at += chunk.length) {
            int len = Math.min(chunk.length, n - at);
            column.get(firstRow + at, chunk, 0, len);
            if (held) { // the field's latest non-NaN value at every event
                for (int k = 0; k < len; k++) {
                    if (chunk[k] == chunk[k]) {
                        last = chunk[k];
                    } else {
                        chunk[k] = last;
                    }
                }
            }
            if (ind instanceof SmaRTIndicator sma) {
                v = sma.updateAll(chunk, len, out, at, v); // the loop below, its state in locals
            } else if (ind instanceof EmaRTIndicator ema) {
                v = ema.updateAll(chunk, len, out, at, v);
            } else {
                for (int k = 0; k < len; k++) {
                    v = chunk[k] == chunk[k] ? ind.update(chunk[k]) : v;
                    store(out, at + k, v);
                }
            }
        }
        return v;
    }

    private static void store(double[] out, int at, double v) {
        if (out != null) {
            out[at] = v;
        }
    }
}
