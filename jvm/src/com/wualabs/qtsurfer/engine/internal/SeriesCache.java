package com.wualabs.qtsurfer.engine.internal;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Engine-internal: value series of data-fed built-in indicators (an SMA of the close, say), kept
 * between the runs of one engine host so that a sweep's vectors compute each distinct series once
 * instead of once per vector. A series is a pure function of its key (the data, the field, the
 * indicator and its parameters; see {@link RunSeries}): it is computed by engine code from the
 * columns alone, never recorded from a run, so what one run's code does cannot reach another run
 * through it.
 *
 * <p>Bounded twice ({@link SoftLru}): by {@code budgetBytes} (least recently used out first), and by
 * the heap, since the entries are soft references that the collector clears before a run would run
 * out of memory. Thread-safe.
 *
 * <p>A series let go of is computed over again rather than allocated: a sweep whose vectors bring new
 * parameters drops one series for each one it computes, and each was a new array of a million values
 * in the old generation, where a full collection moved the cache's live series to close the gap (about
 * 45 ms every half second of a sweep on each host, docs/engine-host.md, "Series arrays used again").
 * So a series is <em>held</em> from the time it is handed out ({@link #take}, {@link #blank}) until its
 * request ends ({@link #release}); one let go of while nobody holds it becomes a spare, one let go of
 * while held becomes a spare when its last holder releases it, and {@link #blank} hands out a spare of
 * the asked length before it allocates. A spare is soft as well, and only {@link #SPARES} are kept.
 */
public final class SeriesCache {

    /** Spares kept at most: a sweep computes one series at a time, and each drops about one. */
    static final int SPARES = 2;

    private final SoftLru<double[]> series;
    private final Map<double[], Integer> holds = new IdentityHashMap<>();
    private final Set<double[]> droppedWhileHeld = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<double[]> abandoned = Collections.newSetFromMap(new IdentityHashMap<>());
    private final ArrayDeque<SoftReference<double[]>> spares = new ArrayDeque<>();
    private long hits;
    private long misses;
    private long reused;

    /** A cache of at most {@code budgetBytes} of series; 0 keeps nothing. */
    public SeriesCache(long budgetBytes) {
        this.series = new SoftLru<>(budgetBytes, this::dropped);
    }

    /**
     * Whether a series of {@code length} values may be computed ahead at all: one that the cache
     * would not keep (above half the budget) is not worth its memory for a single run.
     */
    public boolean fits(long length) {
        return 8L * length + 16 <= series.budgetBytes() / 2;
    }

    /** The most bytes of series one run may hold at once (as many as the cache). */
    public long budgetBytes() {
        return series.budgetBytes();
    }

    /** The cached series of {@code key}, held until {@link #release}d; or null. */
    public synchronized double[] take(String key) {
        double[] found = series.get(key);
        if (found == null) {
            misses++;
        } else {
            hits++;
            hold(found);
        }
        return found;
    }

    /**
     * An array of {@code length} values to compute a series into, held until {@link #release}d: a
     * spare of that length, or a new one. Its values are whatever it held before: the caller writes
     * every one of them.
     */
    public synchronized double[] blank(int length) {
        for (Iterator<SoftReference<double[]>> it = spares.iterator(); it.hasNext(); ) {
            double[] spare = it.next().get();
            if (spare == null || spare.length == length) {
                it.remove();
            }
            if (spare != null && spare.length == length) {
                reused++;
                hold(spare);
                return spare;
            }
        }
        double[] fresh = new double[length];
        hold(fresh);
        return fresh;
    }

    /**
     * Keeps {@code values} under {@code key}, dropping the least recently used entries to stay
     * within the budget; a series larger than half the budget is not kept (it would flush
     * everything else for one key).
     */
    public synchronized void put(String key, double[] values) {
        if (fits(values.length)) {
            series.put(key, values, 8L * values.length + 16);
        }
    }

    /**
     * Ends one hold of {@code values} (one per {@link #take} or {@link #blank} that returned it): once
     * nobody holds it and the cache has let go of it, it is a spare. Only for a request whose code has
     * stopped: whatever still runs must not read a series that another one is computed into.
     */
    public synchronized void release(double[] values) {
        if (unhold(values) && droppedWhileHeld.remove(values) && !abandoned.remove(values)) {
            spare(values);
        }
    }

    /**
     * Ends one hold of {@code values} (a request that ended in doubt: its code may still read it), which
     * is then never a spare: let go of now if the cache has dropped it, else when it does.
     */
    public synchronized void abandon(double[] values) {
        if (unhold(values) && droppedWhileHeld.remove(values)) {
            abandoned.remove(values);
        } else {
            abandoned.add(values);
        }
    }

    /** Bytes of the series held (or held until the collector cleared them). */
    public long bytes() {
        return series.bytes();
    }

    /** Lookups that found their series, lookups that did not, and series computed into a spare. */
    public synchronized long[] counts() {
        return new long[] {hits, misses, reused};
    }

    /** Drops every entry. */
    public synchronized void clear() {
        series.clear();
    }

    /** The cache let go of {@code values} (under this cache's lock: every caller of the LRU holds it). */
    private synchronized void dropped(double[] values) {
        if (holds.containsKey(values)) {
            droppedWhileHeld.add(values);
        } else if (!abandoned.remove(values)) {
            spare(values);
        }
    }

    private void spare(double[] values) {
        if (spares.size() >= SPARES) {
            spares.pollFirst();
        }
        spares.addLast(new SoftReference<>(values));
    }

    private void hold(double[] values) {
        holds.merge(values, 1, Integer::sum);
    }

    /** True when that was the last hold of {@code values}. */
    private boolean unhold(double[] values) {
        Integer n = holds.get(values);
        if (n == null) {
            throw new IllegalStateException("a series released more often than it was handed out");
        }
        if (n > 1) {
            holds.put(values, n - 1);
            return false;
        }
        holds.remove(values);
        return true;
    }
}
