package com.wualabs.backtestd.host;

import java.lang.ref.SoftReference;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Heap copies of the input columns, kept between the runs of one engine host: a sweep feeds the
 * same prepared data to every vector, and the event loops read plain arrays faster than mapped
 * buffers (each buffer read checks its index against the limit, looks at the buffer's memory
 * scope and computes the address; an array read in a counted loop does none of that). With the
 * issue 7 grid over 904,109 one-second klines the strategy thread took 26.0 ms a vector from the
 * mapped buffers and 23.5 ms from arrays, with the same signals (docs/benchmarks.md).
 *
 * <p>The copy is made by the request's thread before its runs start, from the mapped columns,
 * so it is the host's work, never a strategy's, and holds exactly the bits of the files. It is
 * keyed by the data's identity ({@link ColumnSet#identity}: every column file's path, size,
 * modification time and file key), so a file replaced in place is a different key.
 *
 * <p>Bounded twice, like {@code SeriesCache}: by {@code budgetBytes} (least recently used out
 * first; data larger than the whole budget is not copied, and its runs read the mapped buffers
 * as before), and by the heap, since the entries are soft references that the collector clears
 * before a run would run out of memory. While a batch runs, its copy is held strongly: the
 * strategy has that much less heap, which is why the budget is a quarter of the heap by
 * default. A copy that cannot be allocated is not made (the runs read the files). Thread-safe.
 */
final class ColumnCache {

    private final long budgetBytes;
    private final LinkedHashMap<String, SoftReference<Object[]>> entries =
            new LinkedHashMap<>(8, 0.75f, true);
    private final Map<String, Long> sizes = new LinkedHashMap<>();
    private long bytes;
    private long hits;
    private long misses;

    /** A cache of at most {@code budgetBytes} of columns; 0 keeps nothing. */
    ColumnCache(long budgetBytes) {
        this.budgetBytes = Math.max(0, budgetBytes);
    }

    /** Bytes that the heap copy of {@code columns} takes. */
    static long sizeOf(ColumnSet columns) {
        return (8L * columns.rows + 16) * ColumnSet.LAYOUTS.get(columns.kind).size();
    }

    /**
     * The columns of {@code columns} as heap arrays ({@code long[]} or {@code double[]}) in the
     * order of {@link ColumnSet#LAYOUTS}, copied on first use; null for data without an identity
     * or larger than the budget.
     */
    synchronized Object[] arrays(ColumnSet columns) {
        String key = columns.identity;
        long size = sizeOf(columns);
        if (key == null || size > budgetBytes) {
            return null;
        }
        SoftReference<Object[]> ref = entries.get(key);
        Object[] held = ref == null ? null : ref.get();
        if (held != null) {
            hits++;
            return held;
        }
        misses++;
        if (ref != null) {
            forget(key);
        }
        Iterator<Map.Entry<String, SoftReference<Object[]>>> oldest = entries.entrySet().iterator();
        while (bytes + size > budgetBytes && oldest.hasNext()) {
            String k = oldest.next().getKey();
            oldest.remove();
            bytes -= sizes.remove(k);
        }
        Object[] copy;
        try {
            copy = copy(columns);
        } catch (OutOfMemoryError e) {
            // A heap too full for the copy (other entries were dropped above): the runs read
            // the mapped files instead, as for data over the budget. Only these arrays failed
            // to allocate, so the heap is as it was.
            return null;
        }
        entries.put(key, new SoftReference<>(copy));
        sizes.put(key, size);
        bytes += size;
        return copy;
    }

    /** The copy of {@code columns} if one is held (a hit), else null; never copies. */
    synchronized Object[] held(ColumnSet columns) {
        String key = columns.identity;
        SoftReference<Object[]> ref = key == null ? null : entries.get(key);
        Object[] held = ref == null ? null : ref.get();
        if (held != null) {
            hits++;
        }
        return held;
    }

    /** Lookups that found their columns, and lookups that copied them. */
    synchronized long[] counts() {
        return new long[] {hits, misses};
    }

    /** Bytes of columns held (or held until the collector cleared them). */
    synchronized long bytes() {
        return bytes;
    }

    private static Object[] copy(ColumnSet columns) {
        List<String> layout = ColumnSet.LAYOUTS.get(columns.kind);
        Object[] out = new Object[layout.size()];
        for (int i = 0; i < out.length; i++) {
            String name = layout.get(i);
            if (columns.isLong(name)) {
                long[] values = new long[columns.rows];
                columns.longs(name).get(0, values);
                out[i] = values;
            } else {
                double[] values = new double[columns.rows];
                columns.doubles(name).get(0, values);
                out[i] = values;
            }
        }
        return out;
    }

    private void forget(String key) {
        entries.remove(key);
        Long size = sizes.remove(key);
        if (size != null) {
            bytes -= size;
        }
    }
}
