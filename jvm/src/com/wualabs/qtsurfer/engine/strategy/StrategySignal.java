package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Base of the signals a strategy emits ({@link BuySignal}, {@link SellSignal}, {@link InfoStrategySignal}).
 * Every signal can carry fields ({@link #set}); they are published as the signal's data. Keys starting with
 * {@code _} are kept out of reporting metadata by consumers (they are still part of the data).
 */
public abstract class StrategySignal {

    private final Instrument instrument;
    private final double price;
    private LinkedHashMap<String, Object> fields;

    protected StrategySignal(Instrument instrument, double price) {
        this.instrument = instrument;
        this.price = price;
    }

    /** The instrument the signal is about. */
    public Instrument getInstrument() {
        return instrument;
    }

    /** The signal price (NaN for informational signals). */
    public double getPrice() {
        return price;
    }

    /** Attaches a field (null removes it). Returns this signal. */
    public StrategySignal set(String key, Object value) {
        Objects.requireNonNull(key, "key");
        if (value == null) {
            if (fields != null) {
                fields.remove(key);
            }
            return this;
        }
        if (fields == null) {
            fields = new LinkedHashMap<>();
        }
        fields.put(key, value);
        return this;
    }

    /**
     * Attaches a structured field from alternating attribute names and values, e.g. the chart marker
     * {@code set("_m", "position", "belowBar", "shape", "arrowUp", "color", "#26a69a", "text", "BUY")},
     * stored as an ordered map {@code {position=belowBar, shape=arrowUp, ...}}.
     *
     * @throws IllegalArgumentException when the number of values is odd
     */
    public StrategySignal set(String key, Object... attributes) {
        if (attributes == null) {
            return set(key, (Object) null);
        }
        if (attributes.length % 2 != 0) {
            throw new IllegalArgumentException("set(\"" + key + "\", ...) expects alternating attribute names and values, got "
                    + attributes.length + " values");
        }
        LinkedHashMap<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < attributes.length; i += 2) {
            m.put(String.valueOf(attributes[i]), attributes[i + 1]);
        }
        return set(key, (Object) Collections.unmodifiableMap(m));
    }

    /** The field's value, or null. */
    public Object get(String key) {
        return fields == null ? null : fields.get(key);
    }

    /** True when the field is set. */
    public boolean has(String key) {
        return fields != null && fields.containsKey(key);
    }

    /** All fields, in insertion order (read-only). */
    public Map<String, Object> getData() {
        return fields == null ? Map.of() : Collections.unmodifiableMap(fields);
    }

    /** +1 buy, -1 sell, 0 informational. */
    public abstract int getSide();

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + instrument + (price == price ? " @" + price : "")
                + (fields == null ? "" : " " + fields) + "]";
    }
}
