package com.wualabs.qtsurfer.engine.core.state;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Objects;

/**
 * Per-instrument state shared by every window listener of that instrument (and returned by
 * {@code getStateStore(instrument)}).
 *
 * <p>Four independent key spaces: int counters ({@link #inc}, {@link #dec}), boolean flags
 * ({@link #set}, {@link #unset}, {@link #is}), double accumulators ({@link #add}) and arbitrary objects
 * ({@link #setState}, {@link #getState}). The same key may be used in each without interference.
 * Everything starts at zero / false / absent.
 */
public final class StateStore {

    private final HashMap<String, int[]> counters = new HashMap<>();
    private final HashSet<String> flags = new HashSet<>();
    private final HashMap<String, double[]> sums = new HashMap<>();
    private final HashMap<String, Object> states = new HashMap<>();

    /** Increments the counter (starting at 0) and returns the new value. */
    public int inc(String key) {
        return ++counter(key)[0];
    }

    /** Decrements the counter (starting at 0) and returns the new value. */
    public int dec(String key) {
        return --counter(key)[0];
    }

    /** The counter's current value (0 when never touched). */
    public int count(String key) {
        int[] c = counters.get(key);
        return c == null ? 0 : c[0];
    }

    /** Sets the counter to {@code value}. */
    public void setCount(String key, int value) {
        counter(key)[0] = value;
    }

    /** Sets the flag to true. */
    public void set(String key) {
        flags.add(Objects.requireNonNull(key, "key"));
    }

    /** Sets the flag to false. */
    public void unset(String key) {
        flags.remove(key);
    }

    /** Reads the flag (false when never set). */
    public boolean is(String key) {
        return flags.contains(key);
    }

    /** Adds {@code delta} to the accumulator (starting at 0.0) and returns the new value. */
    public double add(String key, double delta) {
        double[] s = sums.get(key);
        if (s == null) {
            s = new double[1];
            sums.put(Objects.requireNonNull(key, "key"), s);
        }
        s[0] += delta;
        return s[0];
    }

    /** The accumulator's current value (0.0 when never touched). */
    public double sum(String key) {
        double[] s = sums.get(key);
        return s == null ? 0.0 : s[0];
    }

    /** Stores any object (null removes the entry). */
    public void setState(String key, Object value) {
        Objects.requireNonNull(key, "key");
        if (value == null) {
            states.remove(key);
        } else {
            states.put(key, value);
        }
    }

    /**
     * Reads an object stored with {@link #setState}, or {@code defaultValue} when absent. The result is
     * cast to the default's type at the call site: storing a {@code Double} and reading it with an
     * {@code Integer} default fails with a ClassCastException there.
     */
    @SuppressWarnings("unchecked")
    public <T> T getState(String key, T defaultValue) {
        Object v = states.get(key);
        return v == null ? defaultValue : (T) v;
    }

    /** Reads an object stored with {@link #setState}, or null. */
    @SuppressWarnings("unchecked")
    public <T> T getState(String key) {
        return (T) states.get(key);
    }

    /** True when an object is stored under {@code key}. */
    public boolean hasState(String key) {
        return states.containsKey(key);
    }

    /** Removes {@code key} from every key space. */
    public void remove(String key) {
        counters.remove(key);
        flags.remove(key);
        sums.remove(key);
        states.remove(key);
    }

    /** Empties every key space. */
    public void clear() {
        counters.clear();
        flags.clear();
        sums.clear();
        states.clear();
    }

    private int[] counter(String key) {
        int[] c = counters.get(key);
        if (c == null) {
            c = new int[1];
            counters.put(Objects.requireNonNull(key, "key"), c);
        }
        return c;
    }

    @Override
    public String toString() {
        return "StateStore[counters=" + counters.size() + ", flags=" + flags + ", sums=" + sums.size()
                + ", states=" + states.keySet() + "]";
    }
}
