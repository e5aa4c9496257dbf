package com.wualabs.qtsurfer.engine;

import java.io.InputStream;
import java.util.Properties;

/**
 * The version of the engine actually loaded, read once from the engine's own metadata
 * ({@code com/wualabs/qtsurfer/engine/engine-version.properties}, written by {@code jvm/build.sh}).
 *
 * <p>Nothing here throws. When the version cannot be determined the string is {@link #UNKNOWN}
 * and every numeric component is {@link #UNKNOWN_COMPONENT}. Major and minor resolve together:
 * either both are known or both are {@code -1}. The patch resolves on its own.
 */
public final class EngineVersion {

    /** Version string reported when the metadata is missing or unreadable. */
    public static final String UNKNOWN = "unknown";
    /** Numeric component reported when it cannot be determined (negative, so version gates fail closed). */
    public static final int UNKNOWN_COMPONENT = -1;

    private static final String RESOURCE = "engine-version.properties";

    private static final String VERSION;
    private static final int MAJOR;
    private static final int MINOR;
    private static final int PATCH;

    static {
        String version = UNKNOWN;
        try (InputStream in = EngineVersion.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null && !v.isBlank()) {
                    version = v.trim();
                }
            }
        } catch (Exception | LinkageError ignored) {
            version = UNKNOWN;
        }
        int major = UNKNOWN_COMPONENT;
        int minor = UNKNOWN_COMPONENT;
        int patch = UNKNOWN_COMPONENT;
        if (!UNKNOWN.equals(version)) {
            String core = version;
            int cut = indexOfAny(core, '-', '+');
            if (cut >= 0) {
                core = core.substring(0, cut);
            }
            String[] parts = core.split("\\.", -1);
            if (parts.length >= 2) {
                int a = parse(parts[0]);
                int b = parse(parts[1]);
                if (a >= 0 && b >= 0) {
                    major = a;
                    minor = b;
                }
            }
            if (parts.length >= 3) {
                patch = parse(parts[2]);
            }
        }
        VERSION = version;
        MAJOR = major;
        MINOR = minor;
        PATCH = patch;
    }

    private EngineVersion() {
    }

    /** The full version string, e.g. {@code "1.0.0"}, or {@link #UNKNOWN}. */
    public static String getVersion() {
        return VERSION;
    }

    /** The major component, or {@link #UNKNOWN_COMPONENT}. */
    public static int getMajor() {
        return MAJOR;
    }

    /** The minor component, or {@link #UNKNOWN_COMPONENT}. */
    public static int getMinor() {
        return MINOR;
    }

    /** The patch component, or {@link #UNKNOWN_COMPONENT}. */
    public static int getPatch() {
        return PATCH;
    }

    private static int indexOfAny(String s, char a, char b) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == a || c == b) {
                return i;
            }
        }
        return -1;
    }

    private static int parse(String s) {
        if (s.isEmpty() || s.length() > 9) {
            return UNKNOWN_COMPONENT;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return UNKNOWN_COMPONENT;
            }
        }
        return Integer.parseInt(s);
    }
}
