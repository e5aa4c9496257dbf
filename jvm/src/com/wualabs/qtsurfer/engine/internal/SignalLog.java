package com.wualabs.qtsurfer.engine.internal;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Engine-internal: signals of one run in compact growable columns: event time, side (+1 buy, -1 sell,
 * 0 info), price (NaN for info), instrument, and, sparsely, the fields of the signals that carry any.
 * At most {@link #MAX_SIGNALS} are kept; the rest are counted ({@link #dropped()}) so that the host
 * can fail the run with a clear message instead of running out of memory.
 *
 * <p>Fields are kept sparse because most signals are plain buys and sells: a sweep's vector emits
 * about 15,000 of them and none carries a field. A per-signal list cost an append per signal, and
 * the host's answer a loop over all of them, which C2 compiled (with the JSON conversion it calls)
 * in each engine host's first sweep: 0.5-1 s of compiler-thread wall time a host, about 0.2 s of
 * CPU (docs/benchmarks.md).
 */
public final class SignalLog {

    /** Signals one run may emit (buys, sells and info together). */
    public static final int MAX_SIGNALS = 1_000_000;

    public static final byte BUY = 1;
    public static final byte SELL = -1;
    public static final byte INFO = 0;

    private long[] ts = new long[64];
    private byte[] side = new byte[64];
    private double[] price = new double[64];
    private Instrument[] instrument = new Instrument[64];
    /** Indices of the signals that carry fields, ascending; {@link #fields} holds those fields. */
    private int[] fieldsAt = new int[8];
    private final ArrayList<Map<String, Object>> fields = new ArrayList<>();
    private int size;
    private long dropped;

    public void add(long time, byte s, double p, Instrument inst, Map<String, Object> signalFields) {
        if (size >= MAX_SIGNALS) {
            dropped++;
            return;
        }
        if (size == ts.length) {
            int cap = size * 2;
            ts = Arrays.copyOf(ts, cap);
            side = Arrays.copyOf(side, cap);
            price = Arrays.copyOf(price, cap);
            instrument = Arrays.copyOf(instrument, cap);
        }
        ts[size] = time;
        side[size] = s;
        price[size] = p;
        instrument[size] = inst;
        if (signalFields != null && !signalFields.isEmpty()) {
            int k = fields.size();
            if (k == fieldsAt.length) {
                fieldsAt = Arrays.copyOf(fieldsAt, k * 2);
            }
            fieldsAt[k] = size;
            fields.add(signalFields);
        }
        size++;
    }

    public int size() {
        return size;
    }

    /**
     * Forgets every signal kept and the count of dropped ones, keeping the arrays: a live session
     * hands its signals out after each batch of updates and starts its log afresh, so the cap
     * applies to one batch and the log does not grow over a run that never ends.
     */
    public void clear() {
        Arrays.fill(instrument, 0, size, null);
        fields.clear();
        size = 0;
        dropped = 0;
    }

    /** Signals emitted beyond {@link #MAX_SIGNALS} and not kept. */
    public long dropped() {
        return dropped;
    }

    public long[] timestamps() {
        return Arrays.copyOf(ts, size);
    }

    public byte[] sides() {
        return Arrays.copyOf(side, size);
    }

    public double[] prices() {
        return Arrays.copyOf(price, size);
    }

    public Instrument[] instruments() {
        return Arrays.copyOf(instrument, size);
    }

    /** The fields of every signal, in signal order: a shared empty map for a signal without any. */
    public List<Map<String, Object>> data() {
        ArrayList<Map<String, Object>> all = new ArrayList<>(size);
        int k = 0;
        int with = fields.size();
        for (int i = 0; i < size; i++) {
            all.add(k < with && fieldsAt[k] == i ? fields.get(k++) : Map.of());
        }
        return Collections.unmodifiableList(all);
    }

    /** The indices of the signals that carry fields, ascending (parallel to {@link #fieldMaps()}). */
    public int[] fieldIndices() {
        return Arrays.copyOf(fieldsAt, fields.size());
    }

    /** The fields of the signals that carry any, in signal order (parallel to {@link #fieldIndices()}). */
    public List<Map<String, Object>> fieldMaps() {
        return Collections.unmodifiableList(new ArrayList<>(fields));
    }
}
