package com.wualabs.backtestd.host;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.LongBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Memory-mapped input columns of one run: raw little-endian arrays written by Python (int64 for
 * timestamps, float64 for values), one file per column, all of the same length.
 *
 * <p>Mapping instead of reading means a sweep that runs many parameter vectors over one prepared
 * dataset shares the page cache instead of copying the data into the heap for every run, and the
 * heap limit is left for the strategy. (The host may use java.nio; strategy code may not.)
 */
final class ColumnSet {
    /** Column names per data kind, in the order the harness callbacks take them. */
    static final Map<String, List<String>> LAYOUTS = Map.of(
            "ticker", List.of("ts", "bid", "bidSize", "ask", "askSize", "last", "volume"),
            "kline", List.of("ts", "closeTs", "open", "high", "low", "close", "volume"),
            "funding", List.of("ts", "rate", "markPrice"));

    /** Columns stored as int64; all others are float64. */
    private static final List<String> INT_COLUMNS = List.of("ts", "closeTs");

    final String kind;
    final int rows;
    /**
     * Names the data: each column's path, size, modification time and file key; null for data
     * that is not a request's ({@link #direct}). Runs share precomputed series only over data of
     * the same identity.
     */
    String identity;
    /**
     * The columns as heap arrays in {@link #LAYOUTS} order ({@link ColumnCache}), or null: the
     * event loops then read the mapped buffers.
     */
    Object[] heap;
    private final Map<String, LongBuffer> longs = new LinkedHashMap<>();
    private final Map<String, DoubleBuffer> doubles = new LinkedHashMap<>();

    private ColumnSet(String kind, int rows) {
        this.kind = kind;
        this.rows = rows;
    }

    /** Maps the files named in {@code paths} (column name → path) for {@code kind}. */
    static ColumnSet map(String kind, Map<String, Object> paths) throws HostException {
        List<String> layout = LAYOUTS.get(kind);
        if (layout == null) {
            throw new HostException(HostException.BAD_REQUEST,
                    "unknown data kind '" + kind + "' (expected ticker, kline or funding)");
        }
        ColumnSet set = null;
        StringBuilder identity = new StringBuilder(kind);
        for (String column : layout) {
            Object path = paths.get(column);
            if (!(path instanceof String p)) {
                throw new HostException(HostException.BAD_REQUEST,
                        "missing column file '" + column + "' for " + kind + " data")
                        .with("expected_columns", layout);
            }
            MappedByteBuffer buffer = mapFile(column, p);
            identity.append('|').append(column).append('=').append(fileIdentity(p));
            int rows = buffer.capacity() / 8;
            if (set == null) {
                set = new ColumnSet(kind, rows);
            } else if (rows != set.rows) {
                throw new HostException(HostException.BAD_REQUEST, "column '" + column + "' has "
                        + rows + " rows but '" + layout.get(0) + "' has " + set.rows);
            }
            if (INT_COLUMNS.contains(column)) {
                set.longs.put(column, buffer.asLongBuffer());
            } else {
                set.doubles.put(column, buffer.asDoubleBuffer());
            }
        }
        set.identity = identity.toString();
        return set;
    }

    private static String fileIdentity(String path) throws HostException {
        try {
            java.nio.file.attribute.BasicFileAttributes a = java.nio.file.Files.readAttributes(
                    Path.of(path), java.nio.file.attribute.BasicFileAttributes.class);
            return path + ':' + a.size() + ':' + a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS)
                    + ':' + a.fileKey();
        } catch (IOException e) {
            throw new HostException(HostException.BAD_REQUEST,
                    "cannot read column file '" + path + "': " + e);
        }
    }

    /**
     * Columns held in direct little-endian buffers, as {@link #map} returns them, and as heap
     * arrays, as {@link ColumnCache} gives a request's (so code the warm-up compiles is the code
     * a run uses): the host's own synthetic data ({@link WarmUp}), never a request's.
     */
    static ColumnSet direct(String kind, Map<String, long[]> longColumns,
            Map<String, double[]> doubleColumns) {
        List<String> layout = LAYOUTS.get(kind);
        int rows = longColumns.get("ts").length;
        ColumnSet set = new ColumnSet(kind, rows);
        for (String column : layout) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(rows * 8).order(ByteOrder.LITTLE_ENDIAN);
            if (INT_COLUMNS.contains(column)) {
                LongBuffer values = buffer.asLongBuffer();
                values.put(longColumns.get(column));
                set.longs.put(column, values.clear());
            } else {
                DoubleBuffer values = buffer.asDoubleBuffer();
                values.put(doubleColumns.get(column));
                set.doubles.put(column, values.clear());
            }
        }
        Object[] heap = new Object[layout.size()];
        for (int i = 0; i < heap.length; i++) {
            String column = layout.get(i);
            heap[i] = INT_COLUMNS.contains(column) ? longColumns.get(column) : doubleColumns.get(column);
        }
        set.heap = heap;
        return set;
    }

    private static MappedByteBuffer mapFile(String column, String path) throws HostException {
        try (FileChannel channel = FileChannel.open(Path.of(path), StandardOpenOption.READ)) {
            long size = channel.size();
            if (size % 8 != 0 || size > Integer.MAX_VALUE - 7) {
                throw new HostException(HostException.BAD_REQUEST, "column file '" + column
                        + "' has " + size + " bytes; expected a multiple of 8 below 2 GiB");
            }
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            buffer.order(ByteOrder.LITTLE_ENDIAN);
            return buffer;
        } catch (IOException e) {
            throw new HostException(HostException.BAD_REQUEST,
                    "cannot map column file '" + column + "' (" + path + "): " + e);
        }
    }

    LongBuffer longs(String column) {
        return longs.get(column);
    }

    DoubleBuffer doubles(String column) {
        return doubles.get(column);
    }

    /** Whether {@code column} holds int64 values (timestamps). */
    boolean isLong(String column) {
        return INT_COLUMNS.contains(column);
    }
}
