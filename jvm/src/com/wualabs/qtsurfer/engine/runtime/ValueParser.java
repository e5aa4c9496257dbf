package com.wualabs.qtsurfer.engine.runtime;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;

/** Parses property strings to a field / setter type (engine-internal). */
final class ValueParser {

    private ValueParser() {
    }

    /** True when {@code type} can be parsed. */
    static boolean supports(Class<?> type) {
        return type == int.class || type == Integer.class || type == long.class || type == Long.class
                || type == short.class || type == Short.class || type == byte.class || type == Byte.class
                || type == double.class || type == Double.class || type == float.class || type == Float.class
                || type == boolean.class || type == Boolean.class || type == char.class || type == Character.class
                || type == String.class || type == BigDecimal.class || type == BigInteger.class || type.isEnum();
    }

    /**
     * Parses {@code raw} as {@code type}.
     *
     * @throws IllegalArgumentException with a message naming the expected type
     */
    static Object parse(String raw, Class<?> type) {
        if (type == String.class) {
            return raw;
        }
        String s = raw.trim();
        if (type == int.class || type == Integer.class) {
            return (int) integral(s, Integer.MIN_VALUE, Integer.MAX_VALUE, "an integer");
        }
        if (type == long.class || type == Long.class) {
            return integral(s, Long.MIN_VALUE, Long.MAX_VALUE, "an integer");
        }
        if (type == short.class || type == Short.class) {
            return (short) integral(s, Short.MIN_VALUE, Short.MAX_VALUE, "a short integer");
        }
        if (type == byte.class || type == Byte.class) {
            return (byte) integral(s, Byte.MIN_VALUE, Byte.MAX_VALUE, "a byte");
        }
        if (type == double.class || type == Double.class) {
            return number(s);
        }
        if (type == float.class || type == Float.class) {
            return (float) number(s);
        }
        if (type == boolean.class || type == Boolean.class) {
            return bool(s);
        }
        if (type == char.class || type == Character.class) {
            if (raw.length() != 1) {
                throw new IllegalArgumentException("expected a single character, got '" + raw + "'");
            }
            return raw.charAt(0);
        }
        if (type == BigDecimal.class) {
            try {
                return new BigDecimal(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected a decimal number, got '" + raw + "'");
            }
        }
        if (type == BigInteger.class) {
            try {
                return new BigDecimal(s).toBigIntegerExact();
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException("expected an integer, got '" + raw + "'");
            }
        }
        if (type.isEnum()) {
            return enumConstant(s, type);
        }
        throw new IllegalArgumentException("unsupported property type " + type.getName());
    }

    private static long integral(String s, long min, long max, String what) {
        try {
            long v = Long.parseLong(s.startsWith("+") ? s.substring(1) : s);
            if (v < min || v > max) {
                throw new IllegalArgumentException("expected " + what + " within [" + min + ", " + max + "], got '" + s + "'");
            }
            return v;
        } catch (NumberFormatException e) {
            // fall through: "9.0", "1e3"
        }
        double d;
        try {
            d = Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected " + what + ", got '" + s + "'");
        }
        if (Double.isNaN(d) || Double.isInfinite(d) || d != Math.rint(d)) {
            throw new IllegalArgumentException("expected " + what + ", got '" + s + "'");
        }
        if (d < min || d > max) {
            throw new IllegalArgumentException("expected " + what + " within [" + min + ", " + max + "], got '" + s + "'");
        }
        return (long) d;
    }

    private static double number(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a number, got '" + s + "'");
        }
    }

    private static boolean bool(String s) {
        String l = s.toLowerCase(Locale.ROOT);
        if (l.equals("true")) {
            return true;
        }
        if (l.equals("false")) {
            return false;
        }
        try {
            double d = Double.parseDouble(l);
            if (d == 1) {
                return true;
            }
            if (d == 0) {
                return false;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("expected true or false, got '" + s + "'");
    }

    private static Object enumConstant(String s, Class<?> type) {
        Object[] constants = type.getEnumConstants();
        for (Object c : constants) {
            if (((Enum<?>) c).name().equals(s)) {
                return c;
            }
        }
        for (Object c : constants) {
            if (((Enum<?>) c).name().equalsIgnoreCase(s)) {
                return c;
            }
        }
        StringBuilder names = new StringBuilder();
        for (Object c : constants) {
            names.append(names.length() == 0 ? "" : ", ").append(((Enum<?>) c).name());
        }
        throw new IllegalArgumentException("expected one of " + names + ", got '" + s + "'");
    }
}
