package com.wualabs.qtsurfer.engine.core.instrument;

import java.util.Locale;
import java.util.Objects;

/**
 * A traded instrument: {@code BTC/USDT} (spot), {@code BTC/USDT:USDT} (perpetual settled in USDT),
 * {@code BTC/USDT:USDT-260327} (dated contract: the expiry travels inside {@code settle}).
 *
 * <p>Currency codes are normalised to upper case, so {@code new Instrument("btc", "usdt")} equals
 * {@code new Instrument("BTC", "USDT")}. {@code settle} is {@code null} for spot instruments.
 */
public record Instrument(String base, String quote, String settle) {

    public Instrument {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(quote, "quote");
        base = base.trim().toUpperCase(Locale.ROOT);
        quote = quote.trim().toUpperCase(Locale.ROOT);
        if (base.isEmpty() || quote.isEmpty()) {
            throw new IllegalArgumentException("instrument base and quote must not be empty");
        }
        if (settle != null) {
            settle = settle.trim().toUpperCase(Locale.ROOT);
            if (settle.isEmpty()) {
                settle = null;
            }
        }
    }

    /** A spot instrument (no settle currency). */
    public Instrument(String base, String quote) {
        this(base, quote, null);
    }

    /** {@code BASE/QUOTE}, or {@code BASE/QUOTE:SETTLE} for derivatives. */
    public String symbol() {
        return settle == null ? base + "/" + quote : base + "/" + quote + ":" + settle;
    }

    /** The settle currency without a dated-contract suffix ({@code USDT} for {@code USDT-260327}), or null. */
    public String settleCurrency() {
        if (settle == null) {
            return null;
        }
        int dash = settle.indexOf('-');
        return dash < 0 ? settle : settle.substring(0, dash);
    }

    /** The dated-contract suffix ({@code 260327} for {@code USDT-260327}), or null. */
    public String expiry() {
        if (settle == null) {
            return null;
        }
        int dash = settle.indexOf('-');
        return dash < 0 ? null : settle.substring(dash + 1);
    }

    /** True for spot instruments (no settle currency). */
    public boolean isSpot() {
        return settle == null;
    }

    /**
     * Parses {@code BASE/QUOTE}, {@code BASE/QUOTE:SETTLE} or {@code BASE/QUOTE:SETTLE-EXPIRY}.
     *
     * @throws IllegalArgumentException when the text is not of that form
     */
    public static Instrument parse(String symbol) {
        Objects.requireNonNull(symbol, "symbol");
        String s = symbol.trim();
        int slash = s.indexOf('/');
        if (slash <= 0 || slash == s.length() - 1) {
            throw new IllegalArgumentException("not an instrument symbol: '" + symbol + "'");
        }
        String base = s.substring(0, slash);
        String rest = s.substring(slash + 1);
        int colon = rest.indexOf(':');
        if (colon < 0) {
            return new Instrument(base, rest);
        }
        if (colon == 0 || colon == rest.length() - 1) {
            throw new IllegalArgumentException("not an instrument symbol: '" + symbol + "'");
        }
        return new Instrument(base, rest.substring(0, colon), rest.substring(colon + 1));
    }

    @Override
    public String toString() {
        return symbol();
    }
}
