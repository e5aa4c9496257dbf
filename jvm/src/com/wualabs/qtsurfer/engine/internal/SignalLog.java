package com.wualabs.qtsurfer.engine.internal;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Engine-internal: signals of one run in compact growable columns: event time, side (+1 buy, -1 sell,
 * 0 info), price (NaN for info), instrument, and the signal's fields (a shared empty map when none).
 * At most {@link #MAX_SIGNALS} are kept; the rest are counted ({@link #dropped()}) so that the host
 * can fail the run with a clear message instead of running out of memory.
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
    private final ArrayList<Map<String, Object>> data = new ArrayList<>();
    private int size;
    private long dropped;

    public void add(long time, byte s, double p, Instrument inst, Map<String, Object> fields) {
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
        data.add(fields == null || fields.isEmpty() ? Map.of() : fields);
        size++;
    }

    public int size() {
        return size;
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

    public List<Map<String, Object>> data() {
        return Collections.unmodifiableList(new ArrayList<>(data));
    }
}
