package com.wualabs.qtsurfer.engine.indicators.core;

/**
 * Fixed-capacity ring of doubles (engine helper). {@link #push} returns the evicted value, or NaN while
 * the ring is filling. {@link #get(int)} indexes from the oldest (0) to the newest ({@code size()-1}).
 */
public final class DoubleRing {

    private final double[] buf;
    private int head;
    private int size;

    public DoubleRing(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        buf = new double[capacity];
    }

    public double push(double x) {
        double evicted = Double.NaN;
        if (size == buf.length) {
            evicted = buf[head];
        } else {
            size++;
        }
        buf[head] = x;
        head++;
        if (head == buf.length) {
            head = 0;
        }
        return evicted;
    }

    /** True when the last push completed a full turn of the ring (a good moment to re-sum exactly). */
    public boolean wrapped() {
        return head == 0 && size == buf.length;
    }

    public int size() {
        return size;
    }

    public int capacity() {
        return buf.length;
    }

    public boolean full() {
        return size == buf.length;
    }

    /** Element {@code i}, 0 = oldest. */
    public double get(int i) {
        int start = size == buf.length ? head : 0;
        int idx = start + i;
        if (idx >= buf.length) {
            idx -= buf.length;
        }
        return buf[idx];
    }

    /** The newest element (NaN when empty). */
    public double newest() {
        if (size == 0) {
            return Double.NaN;
        }
        int idx = head - 1;
        return buf[idx < 0 ? buf.length - 1 : idx];
    }

    /** The oldest element (NaN when empty). */
    public double oldest() {
        return size == 0 ? Double.NaN : get(0);
    }

    public double sum() {
        double s = 0;
        for (int i = 0; i < size; i++) {
            s += buf[i];
        }
        return s;
    }

    public double max() {
        double m = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < size; i++) {
            if (buf[i] > m) {
                m = buf[i];
            }
        }
        return m;
    }

    public double min() {
        double m = Double.POSITIVE_INFINITY;
        for (int i = 0; i < size; i++) {
            if (buf[i] < m) {
                m = buf[i];
            }
        }
        return m;
    }

    public void clear() {
        head = 0;
        size = 0;
    }
}
