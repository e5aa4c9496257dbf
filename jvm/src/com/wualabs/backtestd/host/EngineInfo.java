package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * The engine version reported in the handshake, read from the engine API itself (its
 * {@code EngineVersion} class, else the jar manifest), so that the Python side can record which
 * engine produced a result. Falls back to "unknown", like the API's own contract (§14).
 */
final class EngineInfo {
    private static final String[] METHODS = {"get", "getVersion", "version", "current", "string"};
    private static final String[] FIELDS = {"VERSION", "CURRENT", "FULL"};

    private EngineInfo() {}

    static String version() {
        try {
            Class<?> c = Class.forName("com.wualabs.qtsurfer.engine.EngineVersion");
            for (String name : METHODS) {
                String v = staticString(c, name);
                if (v != null) {
                    return v;
                }
            }
            for (String name : FIELDS) {
                try {
                    Field f = c.getField(name);
                    if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                        return (String) f.get(null);
                    }
                } catch (NoSuchFieldException ignored) {
                    // try the next spelling
                }
            }
        } catch (ReflectiveOperationException | LinkageError | RuntimeException ignored) {
            // fall through to the manifest
        }
        Package p = StrategyHarness.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "unknown" : v;
    }

    private static String staticString(Class<?> c, String name) {
        try {
            Method m = c.getMethod(name);
            if (Modifier.isStatic(m.getModifiers()) && m.getReturnType() == String.class) {
                return (String) m.invoke(null);
            }
        } catch (ReflectiveOperationException | RuntimeException ignored) {
            // not this spelling
        }
        return null;
    }
}
