package com.wualabs.backtestd.host;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sandbox class loaders kept from one request to the next, one per strategy (by class digest),
 * for strategies whose classes cannot hold static state ({@link StaticState}).
 *
 * <p>Why: the JIT compiles a strategy's classes, and the engine code that calls into them, per
 * loaded class. A sweep sends its vectors in many requests; with a loader per request (or per
 * few vectors) every request's vectors started on interpreted, newly profiled classes, and the
 * engine's compiled call sites saw a new receiver class each time, so they were deoptimised and
 * recompiled until megamorphic. One loader for all of a strategy's runs keeps them compiled.
 *
 * <p>Why it is safe: a class that passes {@link StaticState#none} holds nothing a run can change
 * (no static initializer, no {@code putstatic}, only constant static fields); each run still gets
 * its own strategy instance. A run that fails drops its strategy's loader ({@link #discard}:
 * linkage errors stick to a loader), so the next run starts on a fresh one.
 *
 * <p>Only when the JVM never generates reflection accessors ({@link #available}): past the JDK's
 * inflation threshold (15 calls by default) the reflective constructor and setters a run calls
 * would get a generated accessor class defined under the sandbox loader, which cannot link it.
 * {@code HostConfig} starts the host with {@code -Dsun.reflect.inflationThreshold} at its
 * maximum; a host started without it keeps at most {@link RunService.Loaders#SHARE_LIMIT}
 * vectors a loader.
 */
final class SharedLoaders {
    /** Strategies whose loader is kept; the least recently used goes first. */
    static final int CAPACITY = 8;
    /** An inflation threshold at least this high is never reached by a host's runs. */
    private static final int NEVER_INFLATES = 1 << 30;

    private final Map<String, ClassLoader> byDigest = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ClassLoader> eldest) {
            return size() > CAPACITY;
        }
    };

    /** True when this JVM's reflection never generates accessor classes. */
    static boolean available() {
        return Integer.getInteger("sun.reflect.inflationThreshold", 15) >= NEVER_INFLATES;
    }

    /** The loader of the classes with {@code digest}, created on first use. */
    synchronized ClassLoader get(String digest, Map<String, byte[]> classes) {
        return byDigest.computeIfAbsent(digest,
                d -> new SandboxClassLoader(classes, HostMain.class.getClassLoader()));
    }

    /** Forgets the loader of {@code digest}: the next run of those classes gets a fresh one. */
    synchronized void discard(String digest) {
        byDigest.remove(digest);
    }
}
