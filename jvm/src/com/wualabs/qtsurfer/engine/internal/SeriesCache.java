package com.wualabs.qtsurfer.engine.internal;

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
 */
public final class SeriesCache {

    private final SoftLru<double[]> series;
    private long hits;
    private long misses;

    /** A cache of at most {@code budgetBytes} of series; 0 keeps nothing. */
    public SeriesCache(long budgetBytes) {
        this.series = new SoftLru<>(budgetBytes);
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

    /** The cached series of {@code key}, or null. */
    public synchronized double[] get(String key) {
        double[] found = series.get(key);
        if (found == null) {
            misses++;
        } else {
            hits++;
        }
        return found;
    }

    /**
     * Keeps {@code values} under {@code key}, dropping the least recently used entries to stay
     * within the budget; a series larger than half the budget is not kept (it would flush
     * everything else for one key).
     */
    public void put(String key, double[] values) {
        if (fits(values.length)) {
            series.put(key, values, 8L * values.length + 16);
        }
    }

    /** Bytes of the series held (or held until the collector cleared them). */
    public long bytes() {
        return series.bytes();
    }

    /** Lookups that found their series, and lookups that did not. */
    public synchronized long[] counts() {
        return new long[] {hits, misses};
    }

    /** Drops every entry. */
    public void clear() {
        series.clear();
    }
}
