package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.internal.SoftLru;
import java.util.List;

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
 * <p>Bounded twice ({@link SoftLru}, as {@code SeriesCache} is): by {@code budgetBytes} (least recently used out
 * first; data larger than the whole budget is not copied, and its runs read the mapped buffers
 * as before), and by the heap, since the entries are soft references that the collector clears
 * before a run would run out of memory. While a batch runs, its copy is held strongly: the
 * strategy has that much less heap, which is why the budget is a quarter of the heap by
 * default. A copy that cannot be allocated is not made (the runs read the files). Thread-safe.
 */
final class ColumnCache {

    private final SoftLru<Object[]> copies;
    private long hits;
    private long misses;

    /** A cache of at most {@code budgetBytes} of columns; 0 keeps nothing. */
    ColumnCache(long budgetBytes) {
        this.copies = new SoftLru<>(budgetBytes);
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
        if (key == null || size > copies.budgetBytes()) {
            return null;
        }
        Object[] held = copies.get(key);
        if (held != null) {
            hits++;
            return held;
        }
        misses++;
        copies.makeRoom(size); // before the copy, so that the heap has the dropped ones back
        Object[] copy;
        try {
            copy = copy(columns);
        } catch (OutOfMemoryError e) {
            // A heap too full for the copy: the runs read the mapped files instead, as for data
            // over the budget. Only these arrays failed to allocate, so the heap is as it was.
            return null;
        }
        copies.put(key, copy, size);
        return copy;
    }

    /** The copy of {@code columns} if one is held (a hit), else null; never copies. */
    synchronized Object[] held(ColumnSet columns) {
        Object[] held = columns.identity == null ? null : copies.get(columns.identity);
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
    long bytes() {
        return copies.bytes();
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
}
