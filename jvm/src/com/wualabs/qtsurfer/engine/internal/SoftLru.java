package com.wualabs.qtsurfer.engine.internal;

import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Engine-internal: values kept between runs, bounded twice. By {@code budgetBytes}, the sizes the
 * caller gives, least recently used out first; and by the heap, since the values are soft
 * references that the collector clears before a run would run out of memory (an entry it cleared
 * is forgotten at its next lookup). A value let go of can be handed to the owner (the constructor's
 * {@code dropped}), which may use its memory again. The host's caches of indicator series ({@link SeriesCache})
 * and of input columns share it. Thread-safe.
 *
 * @param <V> what is kept
 */
public final class SoftLru<V> {

    private final long budgetBytes;
    private final Consumer<V> dropped;
    private final LinkedHashMap<String, SoftReference<V>> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<String, Long> sizes = new LinkedHashMap<>();
    private long bytes;

    /** At most {@code budgetBytes} of values; 0 keeps nothing. */
    public SoftLru(long budgetBytes) {
        this(budgetBytes, null);
    }

    /**
     * As {@link #SoftLru(long)}; {@code dropped} (if not null) is given each value the cache lets go of
     * while the collector has not cleared it (dropped for room, or replaced), under this cache's lock.
     */
    public SoftLru(long budgetBytes, Consumer<V> dropped) {
        this.budgetBytes = Math.max(0, budgetBytes);
        this.dropped = dropped;
    }

    public long budgetBytes() {
        return budgetBytes;
    }

    /** The value kept under {@code key}, or null (never kept, dropped, or cleared by the collector). */
    public synchronized V get(String key) {
        SoftReference<V> ref = entries.get(key);
        V value = ref == null ? null : ref.get();
        if (value == null && ref != null) {
            forget(key);
        }
        return value;
    }

    /**
     * Drops the least recently used values until {@code size} more bytes fit the budget (or none
     * is left): before allocating a large value, so that the heap has the dropped ones back.
     */
    public synchronized void makeRoom(long size) {
        Iterator<Map.Entry<String, SoftReference<V>>> oldest = entries.entrySet().iterator();
        while (bytes + size > budgetBytes && oldest.hasNext()) {
            Map.Entry<String, SoftReference<V>> entry = oldest.next();
            String k = entry.getKey();
            V value = entry.getValue().get();
            oldest.remove();
            bytes -= sizes.remove(k);
            if (value != null && dropped != null) {
                dropped.accept(value);
            }
        }
    }

    /** Keeps {@code value} (of {@code size} bytes) under {@code key}, replacing what was there. */
    public synchronized void put(String key, V value, long size) {
        forget(key);
        makeRoom(size);
        entries.put(key, new SoftReference<>(value));
        sizes.put(key, size);
        bytes += size;
    }

    /** Bytes of the values kept (or kept until the collector cleared them). */
    public synchronized long bytes() {
        return bytes;
    }

    /** Drops every value. */
    public synchronized void clear() {
        for (String key : new ArrayList<>(entries.keySet())) {
            forget(key);
        }
    }

    private void forget(String key) {
        SoftReference<V> ref = entries.remove(key);
        Long size = sizes.remove(key);
        if (size != null) {
            bytes -= size;
        }
        V value = ref == null ? null : ref.get();
        if (value != null && dropped != null) {
            dropped.accept(value);
        }
    }
}
