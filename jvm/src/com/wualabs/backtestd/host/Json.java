package com.wualabs.backtestd.host;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny JSON reader and writer for the host protocol headers.
 *
 * <p>The engine jar carries no third-party code, so the host brings its own minimal JSON. Values
 * map to {@code Map<String,Object>} (insertion ordered), {@code List<Object>}, {@code String},
 * {@code Long} (integral numbers that fit), {@code Double}, {@code Boolean} and {@code null}.
 * {@code NaN}, {@code Infinity} and {@code -Infinity} are read and written as bare tokens because
 * Python's {@code json} module speaks them and strategy info data may contain them.
 */
public final class Json {
    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** Parses one JSON value; trailing non-whitespace is an error. */
    public static Object parse(String text) {
        Json reader = new Json(text);
        reader.skipWhitespace();
        Object value = reader.readValue(0);
        reader.skipWhitespace();
        if (reader.pos != text.length()) {
            throw reader.error("trailing characters");
        }
        return value;
    }

    /** Serialises a value built from maps, lists, strings, numbers, booleans and null. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder(256);
        write(value, out);
        return out.toString();
    }

    /** Appends the JSON text of {@code value} to {@code out}. */
    public static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            writeString(s, out);
        } else if (value instanceof Boolean b) {
            out.append(b.booleanValue() ? "true" : "false");
        } else if (value instanceof Double || value instanceof Float) {
            writeDouble(((Number) value).doubleValue(), out);
        } else if (value instanceof Number n) {
            out.append(n.longValue());
        } else if (value instanceof Map<?, ?> map) {
            writeMap(map, out);
        } else if (value instanceof Iterable<?> items) {
            writeList(items.iterator(), out);
        } else {
            writeString(String.valueOf(value), out);
        }
    }

    private static void writeMap(Map<?, ?> map, StringBuilder out) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            writeString(String.valueOf(e.getKey()), out);
            out.append(':');
            write(e.getValue(), out);
        }
        out.append('}');
    }

    private static void writeList(Iterator<?> items, StringBuilder out) {
        out.append('[');
        boolean first = true;
        while (items.hasNext()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            write(items.next(), out);
        }
        out.append(']');
    }

    private static void writeDouble(double d, StringBuilder out) {
        if (Double.isNaN(d)) {
            out.append("NaN");
        } else if (Double.isInfinite(d)) {
            out.append(d > 0 ? "Infinity" : "-Infinity");
        } else {
            out.append(Double.toString(d));
        }
    }

    /**
     * A string as it is when nothing in it needs escaping (names, ids, base64), else through
     * {@link #writeEscaped}. With the escapes inline, {@code write} was C2's largest compile in a
     * worker's host, 0.39 s of CPU (its {@code String.format} and switch inlined into the
     * recursion), taken from the strategy's first rows on a 2-core machine.
     */
    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        int n = s.length();
        int i = 0;
        while (i < n && plain(s.charAt(i))) {
            i++;
        }
        if (i == n) {
            out.append(s);
        } else {
            out.append(s, 0, i);
            writeEscaped(s, i, out);
        }
        out.append('"');
    }

    /** Whether {@code c} is written as it is (not a quote, backslash, control or surrogate). */
    private static boolean plain(char c) {
        return c >= 0x20 && c != '"' && c != '\\' && (c < 0xD800 || c > 0xDFFF);
    }

    private static void writeEscaped(String s, int from, StringBuilder out) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF && !validSurrogate(s, i))) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }

    /** A lone surrogate would not survive UTF-8 encoding, so it is escaped instead. */
    private static boolean validSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    private Object readValue(int depth) {
        if (depth > 64) {
            throw error("nesting too deep");
        }
        if (pos >= text.length()) {
            throw error("unexpected end of input");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return readObject(depth);
            case '[':
                return readArray(depth);
            case '"':
                return readString();
            case 't':
                expectWord("true");
                return Boolean.TRUE;
            case 'f':
                expectWord("false");
                return Boolean.FALSE;
            case 'n':
                expectWord("null");
                return null;
            case 'N':
                expectWord("NaN");
                return Double.NaN;
            case 'I':
                expectWord("Infinity");
                return Double.POSITIVE_INFINITY;
            default:
                return readNumber();
        }
    }

    private Map<String, Object> readObject(int depth) {
        Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return map;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("expected a string key");
            }
            String key = readString();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            map.put(key, readValue(depth + 1));
            skipWhitespace();
            char c = next();
            if (c == '}') {
                return map;
            }
            if (c != ',') {
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> readArray(int depth) {
        List<Object> list = new ArrayList<>();
        pos++;
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return list;
        }
        while (true) {
            skipWhitespace();
            list.add(readValue(depth + 1));
            skipWhitespace();
            char c = next();
            if (c == ']') {
                return list;
            }
            if (c != ',') {
                throw error("expected ',' or ']'");
            }
        }
    }

    /**
     * A string up to its closing quote: taken whole when it holds no escape (the class files'
     * base64, most of a request's bytes), else through {@link #readEscaped}.
     */
    private String readString() {
        expect('"');
        int start = pos;
        int n = text.length();
        int end = start;
        char c = 0;
        while (end < n && (c = text.charAt(end)) != '"' && c != '\\') {
            end++;
        }
        if (end == n) {
            pos = n;
            throw error("unexpected end of input");
        }
        if (c == '"') {
            pos = end + 1;
            return text.substring(start, end);
        }
        pos = end;
        StringBuilder sb = new StringBuilder(end - start + 16);
        sb.append(text, start, end);
        return readEscaped(sb);
    }

    private String readEscaped(StringBuilder sb) {
        while (true) {
            char c = next();
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("bad unicode escape");
                    }
                    sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                }
                default -> throw error("bad escape");
            }
        }
    }

    private Object readNumber() {
        int start = pos;
        if (peek() == '-') {
            pos++;
            if (peek() == 'I') {
                expectWord("Infinity");
                return Double.NEGATIVE_INFINITY;
            }
        }
        boolean integral = true;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c >= '0' && c <= '9') {
                pos++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                pos++;
            } else {
                break;
            }
        }
        String token = text.substring(start, pos);
        if (token.isEmpty() || token.equals("-")) {
            throw error("unexpected character");
        }
        try {
            if (integral && token.length() < 19) {
                return Long.parseLong(token);
            }
            return Double.parseDouble(token);
        } catch (NumberFormatException ex) {
            throw error("bad number " + token);
        }
    }

    private void expectWord(String word) {
        if (!text.startsWith(word, pos)) {
            throw error("expected " + word);
        }
        pos += word.length();
    }

    private void expect(char c) {
        if (next() != c) {
            throw error("expected '" + c + "'");
        }
    }

    private char peek() {
        if (pos >= text.length()) {
            throw error("unexpected end of input");
        }
        return text.charAt(pos);
    }

    private char next() {
        char c = peek();
        pos++;
        return c;
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + what);
    }
}
