package com.wualabs.qtsurfer.engine.runtime;

import com.wualabs.qtsurfer.engine.internal.Notices;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;
import com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code @StrategyProperty} declarations of a strategy class, found by reflection, and their
 * application to an instance (engine-internal).
 *
 * <p>Order: the instance is already constructed; every default is applied, then every param. A field is
 * written through its JavaBean setter {@code set<Field>} (one parameter) when one exists, directly otherwise;
 * a static or final field without a setter cannot be injected and is reported as a notice. A property
 * declared on a method is injected by calling that method.
 */
final class DeclaredProperties {

    /** Engine keys accepted in params when the strategy declares no property of that name. */
    static final Set<String> ENGINE_KEYS = Set.of("executionMode", "multiEntryEnabled", "percentGain");

    /** One declared property. */
    static final class Prop {
        final String name;
        final StrategyProperty ann;
        final Field field;
        final Method setter;
        final Class<?> type;
        final String where;
        final String problem;

        Prop(String name, StrategyProperty ann, Field field, Method setter, Class<?> type, String where, String problem) {
            this.name = name;
            this.ann = ann;
            this.field = field;
            this.setter = setter;
            this.type = type;
            this.where = where;
            this.problem = problem;
        }

        String defaultValue() {
            return ann.defaultValue().isEmpty() ? null : ann.defaultValue();
        }

        PropertyInfo info() {
            return new PropertyInfo(name, ann.description(), defaultValue(), true, hint(ann.min()), hint(ann.max()),
                    hint(ann.step()), type == null ? null : type.getName());
        }

        private static Double hint(double d) {
            return Double.isNaN(d) ? null : d;
        }
    }

    final List<Prop> props;
    final List<String> scanNotices;

    private DeclaredProperties(List<Prop> props, List<String> scanNotices) {
        this.props = props;
        this.scanNotices = scanNotices;
    }

    private static final ClassValue<DeclaredProperties> CACHE = new ClassValue<>() {
        @Override
        protected DeclaredProperties computeValue(Class<?> type) {
            return doScan(type);
        }
    };

    /** The declarations of {@code cls} (scanned once per class, then cached). */
    static DeclaredProperties scan(Class<?> cls) {
        return CACHE.get(cls);
    }

    private static DeclaredProperties doScan(Class<?> cls) {
        ArrayDeque<Class<?>> chain = new ArrayDeque<>();
        for (Class<?> c = cls; c != null && c != Object.class && !isEngineClass(c); c = c.getSuperclass()) {
            chain.addFirst(c);
        }
        LinkedHashMap<String, Prop> byName = new LinkedHashMap<>();
        List<String> notices = new ArrayList<>();
        for (Class<?> c : chain) {
            for (Field f : c.getDeclaredFields()) {
                StrategyProperty ann = f.getAnnotation(StrategyProperty.class);
                if (ann != null) {
                    add(byName, notices, fieldProp(cls, f, ann));
                }
            }
            Method[] methods = c.getDeclaredMethods();
            Arrays.sort(methods, Comparator.comparing(Method::getName));
            for (Method m : methods) {
                StrategyProperty ann = m.getAnnotation(StrategyProperty.class);
                if (ann != null) {
                    add(byName, notices, methodProp(m, ann));
                }
            }
        }
        return new DeclaredProperties(List.copyOf(byName.values()), List.copyOf(notices));
    }

    private static void add(Map<String, Prop> byName, List<String> notices, Prop p) {
        if (byName.containsKey(p.name)) {
            notices.add("property '" + p.name + "' is declared more than once (" + byName.get(p.name).where + ", "
                    + p.where + "); the first declaration is used");
            return;
        }
        byName.put(p.name, p);
    }

    /** The engine's strategy base classes (where the scan stops). */
    private static boolean isEngineClass(Class<?> c) {
        return c.getPackageName().equals(AbstractStrategy.class.getPackageName());
    }

    private static Prop fieldProp(Class<?> cls, Field f, StrategyProperty ann) {
        String name = ann.name().isEmpty() ? f.getName() : ann.name();
        String where = "field " + f.getDeclaringClass().getSimpleName() + "." + f.getName();
        Method setter = findSetter(cls, "set" + capitalize(f.getName()), f.getType());
        Class<?> type = setter != null ? setter.getParameterTypes()[0] : f.getType();
        String problem = null;
        int mod = f.getModifiers();
        if (setter == null && (Modifier.isStatic(mod) || Modifier.isFinal(mod))) {
            problem = "property '" + name + "' (" + where + ") is " + (Modifier.isStatic(mod) ? "static" : "final")
                    + " and has no setter " + "set" + capitalize(f.getName()) + "(...): it is not injected";
        } else if (!ValueParser.supports(type)) {
            problem = "property '" + name + "' (" + where + ") has unsupported type " + type.getName()
                    + ": it is not injected";
        }
        return new Prop(name, ann, f, setter, type, where, problem);
    }

    private static Prop methodProp(Method m, StrategyProperty ann) {
        String where = "method " + m.getDeclaringClass().getSimpleName() + "." + m.getName();
        String name = ann.name();
        if (name.isEmpty()) {
            String n = m.getName();
            name = n.startsWith("set") && n.length() > 3 ? Character.toLowerCase(n.charAt(3)) + n.substring(4) : n;
        }
        String problem = null;
        Class<?> type = m.getParameterCount() == 1 ? m.getParameterTypes()[0] : null;
        if (type == null) {
            problem = "property '" + name + "' (" + where + ") must be declared on a method with exactly one parameter";
        } else if (!ValueParser.supports(type)) {
            problem = "property '" + name + "' (" + where + ") has unsupported type " + type.getName()
                    + ": it is not injected";
        }
        return new Prop(name, ann, null, m, type, where, problem);
    }

    private static Method findSetter(Class<?> cls, String name, Class<?> fieldType) {
        Method fallback = null;
        for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (!m.getName().equals(name) || m.getParameterCount() != 1 || m.isBridge() || m.isSynthetic()) {
                    continue;
                }
                if (m.getParameterTypes()[0] == fieldType) {
                    return m;
                }
                if (fallback == null && ValueParser.supports(m.getParameterTypes()[0])) {
                    fallback = m;
                }
            }
        }
        return fallback;
    }

    List<PropertyInfo> infos() {
        List<PropertyInfo> out = new ArrayList<>(props.size());
        for (Prop p : props) {
            out.add(p.info());
        }
        return out;
    }

    /** The parsed values of one run: every default, every param, the engine keys. */
    static final class Resolved {
        final Map<Prop, Object> defaults = new LinkedHashMap<>();
        final Map<Prop, Object> params = new LinkedHashMap<>();
        final Map<Prop, String> rawParams = new LinkedHashMap<>();
        final Map<String, Object> engine = new LinkedHashMap<>();
        /** Properties given a run value that cannot be injected. */
        final List<Prop> ignored = new ArrayList<>();
        /** Values written before the constructor body ran (plain fields only). */
        final Map<Prop, Object> prewritten = new LinkedHashMap<>();
    }

    /** Checks the keys and parses every default and param; nothing is written yet. */
    Resolved resolve(Map<String, String> params) throws PropertyException {
        Map<String, String> given = params == null ? Map.of() : params;
        Map<String, Prop> byName = new LinkedHashMap<>();
        for (Prop p : props) {
            byName.put(p.name, p);
        }
        for (String key : new TreeSet<>(given.keySet())) {
            if (!byName.containsKey(key) && !ENGINE_KEYS.contains(key)) {
                throw new PropertyException("unknown property '" + key + "'; declared properties: "
                        + (byName.isEmpty() ? "(none)" : String.join(", ", byName.keySet()))
                        + "; engine keys: " + String.join(", ", new TreeSet<>(ENGINE_KEYS)));
            }
            if (given.get(key) == null) {
                throw new PropertyException("property '" + key + "' has no value");
            }
        }
        Resolved r = new Resolved();
        for (Prop p : props) {
            if (p.problem != null) {
                if (given.containsKey(p.name)) {
                    r.ignored.add(p);
                }
                continue;
            }
            if (p.defaultValue() != null) {
                r.defaults.put(p, parse(p, p.defaultValue(), "defaultValue"));
            }
            String raw = given.get(p.name);
            if (raw != null) {
                r.params.put(p, parse(p, raw, "value"));
                r.rawParams.put(p, raw);
            }
        }
        for (String key : new TreeSet<>(given.keySet())) {
            if (byName.containsKey(key)) {
                continue;
            }
            String raw = given.get(key);
            try {
                switch (key) {
                    case "percentGain":
                        r.engine.put(key, ValueParser.parse(raw, double.class));
                        break;
                    case "executionMode":
                        r.engine.put(key, ValueParser.parse(raw, ExecutionMode.class));
                        break;
                    default:
                        r.engine.put(key, ValueParser.parse(raw, boolean.class));
                        break;
                }
            } catch (IllegalArgumentException e) {
                throw new PropertyException("engine property '" + key + "': " + e.getMessage());
            }
        }
        return r;
    }

    /**
     * Runs from the base-class constructor, before field initializers and the constructor body: writes the
     * run's value (param, else default) into every plain instance field (no setter, not static or final), so
     * that constructor code ({@code init}) reads it. The regular pass after construction writes again.
     */
    void prewrite(AbstractStrategy target, Resolved r) {
        for (Prop p : props) {
            if (p.field == null || p.setter != null || p.problem != null) {
                continue;
            }
            Object v = r.params.containsKey(p) ? r.params.get(p) : r.defaults.get(p);
            if (v == null) {
                continue;
            }
            try {
                p.field.setAccessible(true);
                p.field.set(target, v);
                r.prewritten.put(p, v);
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // the regular pass reports it
            }
        }
    }

    /** After construction: notices, every default, then every param, then the engine keys. */
    void apply(AbstractStrategy target, Resolved r, Notices notices) throws PropertyException {
        for (String n : scanNotices) {
            notices.add(n);
        }
        for (Prop p : props) {
            if (p.problem != null) {
                notices.add(p.problem);
            }
        }
        for (Prop p : r.ignored) {
            notices.add("the run value of property '" + p.name + "' was ignored: it cannot be injected");
        }
        for (Map.Entry<Prop, Object> e : r.defaults.entrySet()) {
            Prop p = e.getKey();
            checkInitializer(target, p, e.getValue(), r, notices);
            inject(target, p, e.getValue(), p.defaultValue());
        }
        for (Map.Entry<Prop, Object> e : r.params.entrySet()) {
            inject(target, e.getKey(), e.getValue(), r.rawParams.get(e.getKey()));
        }
        applyEngineKeys(target, r);
    }

    /**
     * New values for a strategy that is already running (a live run's parameter update): every
     * param, then the engine keys, written as {@link #apply} writes them at the start of a run;
     * defaults are not applied again. A value that cannot be injected is a notice, as at start.
     */
    void update(AbstractStrategy target, Resolved r, Notices notices) throws PropertyException {
        for (Prop p : r.ignored) {
            notices.add("the new value of property '" + p.name + "' was ignored: it cannot be injected");
        }
        for (Map.Entry<Prop, Object> e : r.params.entrySet()) {
            inject(target, e.getKey(), e.getValue(), r.rawParams.get(e.getKey()));
        }
        applyEngineKeys(target, r);
    }

    private static void applyEngineKeys(AbstractStrategy target, Resolved r) {
        for (Map.Entry<String, Object> e : r.engine.entrySet()) {
            switch (e.getKey()) {
                case "percentGain":
                    target.setPercentGain((Double) e.getValue());
                    break;
                case "executionMode":
                    target.setExecutionMode((ExecutionMode) e.getValue());
                    break;
                default:
                    target.setMultiEntryEnabled((Boolean) e.getValue());
                    break;
            }
        }
    }

    private static Object parse(Prop p, String raw, String what) throws PropertyException {
        try {
            return ValueParser.parse(raw, p.type);
        } catch (IllegalArgumentException e) {
            throw new PropertyException("property '" + p.name + "' (" + p.where + "): " + what + " " + e.getMessage());
        }
    }

    /**
     * A notice when a field initializer (or constructor code) left a value that disagrees with the
     * defaultValue the engine is about to apply.
     */
    private static void checkInitializer(Object target, Prop p, Object parsedDefault, Resolved r, Notices notices) {
        if (p.field == null || Modifier.isStatic(p.field.getModifiers())) {
            return;
        }
        Object current;
        try {
            p.field.setAccessible(true);
            current = p.field.get(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return;
        }
        boolean prewritten = r.prewritten.containsKey(p);
        if (prewritten ? same(current, r.prewritten.get(p)) : isZero(current)) {
            return;
        }
        if (same(current, parsedDefault)) {
            return;
        }
        notices.add("property '" + p.name + "' (" + p.where + "): the field initializer or constructor set " + current
                + ", which differs from defaultValue \"" + p.defaultValue() + "\"; the engine applies the defaultValue"
                + " (then the run's value) after construction");
    }

    private static boolean isZero(Object v) {
        if (v == null) {
            return true;
        }
        if (v instanceof Number) {
            return ((Number) v).doubleValue() == 0;
        }
        if (v instanceof Boolean) {
            return !((Boolean) v);
        }
        if (v instanceof Character) {
            return (Character) v == '\0';
        }
        return false;
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof Number && b instanceof Number) {
            return ((Number) a).doubleValue() == ((Number) b).doubleValue();
        }
        return Objects.equals(a, b);
    }

    private static void inject(Object target, Prop p, Object value, String raw) throws PropertyException {
        try {
            if (p.setter != null) {
                p.setter.setAccessible(true);
                p.setter.invoke(Modifier.isStatic(p.setter.getModifiers()) ? null : target, value);
            } else {
                p.field.setAccessible(true);
                p.field.set(target, value);
            }
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new PropertyException("property '" + p.name + "': " + p.setter.getName() + "(" + raw + ") failed: "
                    + cause, cause);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new PropertyException("property '" + p.name + "' (" + p.where + ") cannot be written: " + e, e);
        }
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
