package com.wualabs.qtsurfer.engine.internal;

import java.lang.ref.SoftReference;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Engine-internal: value series of data-fed built-in indicators (an SMA of the close, say), kept
 * between the runs of one engine host so that a sweep's vectors compute each distinct series once
 * instead of once per vector. A series is a pure function of its key (the data, the field, the
 * indicator and its parameters; see {@link RunSeries}): it is computed by engine code from the
 * columns alone, never recorded from a run, so what one run's code does cannot reach another run
 * through it.
 *
 * <p>Bounded twice: by {@code budgetBytes} (least recently used out first), and by the heap, since
 * the entries are soft references that the collector clears before a run would run out of memory.
 * Thread-safe.
 */
public final class SeriesCache {

    private final long budgetBytes;
    private final LinkedHashMap<String, SoftReference<double[]>> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<String, Long> sizes = new LinkedHashMap<>();
    private long bytes;
    private long hits;
    private long misses;

    /** A cache of at most {@code budgetBytes} of series; 0 keeps nothing. */
    public SeriesCache(long budgetBytes) {
        this.budgetBytes = Math.max(0, budgetBytes);
    }

    /**
     * Whether a series of {@code length} values may be computed ahead at all: one that the cache
     * would not keep (above half the budget) is not worth its memory for a single run.
     */
    public boolean fits(long length) {
        return 8L * length + 16 <= budgetBytes / 2;
    }

    /** The most bytes of series one run may hold at once (as many as the cache). */
    public long budgetBytes() {
        return budgetBytes;
    }

    /** The cached series of {@code key}, or null. */
    public synchronized double[] get(String key) {
        SoftReference<double[]> ref = entries.get(key);
        double[] series = ref == null ? null : ref.get();
        if (series == null) {
            if (ref != null) {
                forget(key);
            }
            misses++;
            return null;
        }
        hits++;
        return series;
    }

    /**
     * Keeps {@code series} under {@code key}, dropping the least recently used entries to stay
     * within the budget; a series larger than half the budget is not kept (it would flush
     * everything else for one key).
     */
    public synchronized void put(String key, double[] series) {
        if (!fits(series.length)) {
            return;
        }
        long size = 8L * series.length + 16;
        if (entries.containsKey(key)) {
            forget(key);
        }
        Iterator<Map.Entry<String, SoftReference<double[]>>> oldest = entries.entrySet().iterator();
        while (bytes + size > budgetBytes && oldest.hasNext()) {
            String k = oldest.next().getKey();
            oldest.remove();
            bytes -= sizes.remove(k);
        }
        entries.put(key, new SoftReference<>(series));
        sizes.put(key, size);
        bytes += size;
    }

    /** Bytes of the series held (or held until the collector cleared them). */
    public synchronized long bytes() {
        return bytes;
    }

    /** Lookups that found their series, and lookups that did not. */
    public synchronized long[] counts() {
        return new long[] {hits, misses};
    }

    /** Drops every entry. */
    public synchronized void clear() {
        entries.clear();
        sizes.clear();
        bytes = 0;
    }

    private void forget(String key) {
        entries.remove(key);
        Long size = sizes.remove(key);
        if (size != null) {
            bytes -= size;
        }
    }
}
