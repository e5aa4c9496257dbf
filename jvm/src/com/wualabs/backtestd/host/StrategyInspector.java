package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.runtime.PropertyInfo;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads a compiled strategy's declared properties and required sources through the engine's
 * harness. Loading and inspecting a class can run user code (static initializers), so it happens
 * in a sandbox class loader on a guarded worker thread like a run does.
 */
final class StrategyInspector {
    private StrategyInspector() {}

    /**
     * The {@code declared_properties} and {@code required_sources} fields, or null after adding a
     * diagnostic when the class cannot be inspected. Limit overruns and OutOfMemoryError are fatal
     * and thrown.
     */
    static Map<String, Object> inspect(Map<String, byte[]> classes, String mainClass,
            Guard.Limits limits, CompileService.Attempt attempt) throws HostException {
        ClassLoader loader = new SandboxClassLoader(classes, HostMain.class.getClassLoader());
        Guard.Outcome<Map<String, Object>> outcome = Guard.call("strategy class inspection", () -> {
            Class<?> strategy = Class.forName(mainClass, false, loader);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("declared_properties",
                    properties(StrategyHarness.declaredProperties(strategy)));
            out.put("required_sources",
                    new ArrayList<>(new TreeSet<>(StrategyHarness.requiredSources(strategy))));
            return out;
        }, thrown -> Failures.classify(thrown, classes.keySet(), "strategy class inspection"),
                limits);
        if (outcome.error() != null) {
            HostException e = outcome.error();
            if (e.fatal()) {
                throw e;
            }
            attempt.add(-1, -1, e.getMessage(), "ERROR", "host.inspect");
            return null;
        }
        return outcome.value();
    }

    static List<Object> properties(List<PropertyInfo> infos) {
        List<Object> out = new ArrayList<>();
        for (PropertyInfo p : infos) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", p.name());
            m.put("description", p.description());
            m.put("default_value", p.defaultValue());
            m.put("reflected", p.reflected());
            m.put("min", finite(p.min()));
            m.put("max", finite(p.max()));
            m.put("step", finite(p.step()));
            m.put("type", p.type());
            out.add(m);
        }
        return out;
    }

    private static Double finite(Double d) {
        return d == null || d.isNaN() || d.isInfinite() ? null : d;
    }
}
