package com.wualabs.backtestd.host;

import java.util.List;
import java.util.Set;

/**
 * The strategy sandbox allowlist, shared by the bytecode verifier and the sandbox class loader.
 *
 * <p>Names are JVM internal names ({@code java/lang/String}). A class is allowed when it sits under
 * an allowed root and matches no denied prefix; members of allowed classes get a second, narrower
 * check ({@link #memberVerdict}) for the few methods that would open a door on their own
 * (reflection on {@code Class}, parallel streams that start pool threads, blocking waits, file
 * creation through {@code java.util.Formatter}). Each verdict is a short reason a user can read,
 * or {@code null} when the reference is allowed.
 */
final class SandboxPolicy {
    private SandboxPolicy() {}

    /** Package roots whose classes (and sub-packages) strategies may use. */
    static final List<String> ALLOWED_ROOTS = List.of(
            "com/wualabs/qtsurfer/engine/", "java/lang/", "java/util/", "java/math/",
            "java/time/", "java/text/");

    /**
     * Denied inside the allowed roots. An entry ending in '/' denies a package; any other entry
     * denies that class and its nested classes ({@code Name$...}).
     */
    static final List<String> DENIED = List.of(
            // the engine's own plumbing (the harness, signal and notice logs): not strategy API,
            // and reaching it would let a strategy forge its own results
            "com/wualabs/qtsurfer/engine/runtime/", "com/wualabs/qtsurfer/engine/internal/",
            "com/wualabs/qtsurfer/engine/strategy/StrategyInternals",
            // the plumbing under updateIndicators: a group fed through it directly would skip the
            // end of replay that updateIndicators does (engine/internal/RunSeries)
            "com/wualabs/qtsurfer/engine/indicators/helpers/group/GroupDriver",
            "com/wualabs/qtsurfer/engine/indicators/helpers/group/EventFrame",
            // process, threads, class loading, security, VM internals
            "java/lang/System", "java/lang/Runtime", "java/lang/Thread", "java/lang/ThreadGroup",
            "java/lang/ThreadDeath", "java/lang/Process", "java/lang/ProcessBuilder",
            "java/lang/ProcessHandle", "java/lang/ClassLoader", "java/lang/SecurityManager",
            "java/lang/StackWalker", "java/lang/Module", "java/lang/ModuleLayer",
            "java/lang/Compiler", "java/lang/RuntimePermission", "java/lang/Package",
            "java/lang/reflect/", "java/lang/invoke/", "java/lang/ref/Cleaner",
            "java/lang/instrument/", "java/lang/management/", "java/lang/module/",
            "java/lang/runtime/", "java/lang/constant/", "java/lang/foreign/",
            // java.util: thread pools, timers, service loading, logging, files in disguise
            "java/util/concurrent/Executor", "java/util/concurrent/ExecutorService",
            "java/util/concurrent/Executors", "java/util/concurrent/AbstractExecutorService",
            "java/util/concurrent/ScheduledExecutorService",
            "java/util/concurrent/ExecutorCompletionService",
            "java/util/concurrent/ThreadPoolExecutor",
            "java/util/concurrent/ScheduledThreadPoolExecutor",
            "java/util/concurrent/ThreadFactory", "java/util/concurrent/ForkJoinPool",
            "java/util/concurrent/ForkJoinTask", "java/util/concurrent/ForkJoinWorkerThread",
            "java/util/concurrent/RecursiveTask", "java/util/concurrent/RecursiveAction",
            "java/util/concurrent/CountedCompleter", "java/util/concurrent/SubmissionPublisher",
            // parking and locks: a strategy runs on one thread, so a lock only ever serves to
            // park it (LockSupport.parkNanos held a worker for the whole wall limit, idle)
            "java/util/concurrent/locks/",
            "java/util/Timer", "java/util/ServiceLoader", "java/util/ResourceBundle",
            "java/util/ListResourceBundle", "java/util/PropertyResourceBundle",
            "java/util/random/RandomGeneratorFactory", "java/util/prefs/",
            "java/util/logging/", "java/util/jar/", "java/util/zip/", "java/util/spi/",
            "java/text/spi/", "java/time/zone/ZoneRulesProvider");

    /** {@code java.lang.Class} methods that only describe a type; everything else is refused. */
    static final Set<String> CLASS_METHODS = Set.of(
            "getName", "getSimpleName", "getCanonicalName", "getTypeName", "getPackageName",
            "toString", "hashCode", "equals", "isInstance", "cast", "isArray", "isPrimitive",
            "isInterface", "isEnum", "isRecord", "isAnnotation", "isAssignableFrom",
            "getComponentType", "componentType", "arrayType", "desiredAssertionStatus",
            "getEnumConstants", "getSuperclass", "getModifiers", "isAnonymousClass",
            "isLocalClass", "isMemberClass", "isSynthetic", "isHidden", "descriptorString",
            "getClass");

    /** Invokedynamic bootstraps javac emits for lambdas, string concatenation and records. */
    static boolean allowedBootstrap(String owner, String name) {
        return switch (owner) {
            case "java/lang/invoke/LambdaMetafactory" ->
                    name.equals("metafactory") || name.equals("altMetafactory");
            case "java/lang/invoke/StringConcatFactory" ->
                    name.equals("makeConcatWithConstants") || name.equals("makeConcat");
            case "java/lang/runtime/ObjectMethods" -> name.equals("bootstrap");
            default -> false;
        };
    }

    /**
     * Types the class loader must resolve so that the JVM can link the allowed bootstraps (their
     * method types name these). The verifier never allows them in user code itself.
     */
    static final Set<String> BOOTSTRAP_LINKAGE = Set.of(
            "java/lang/invoke/LambdaMetafactory", "java/lang/invoke/StringConcatFactory",
            "java/lang/runtime/ObjectMethods", "java/lang/invoke/MethodHandles$Lookup",
            "java/lang/invoke/MethodHandle", "java/lang/invoke/MethodType",
            "java/lang/invoke/CallSite", "java/lang/invoke/TypeDescriptor",
            "java/lang/invoke/LambdaConversionException",
            "java/lang/invoke/StringConcatException");

    /** Reason a class may not be used, or null when it may. Arrays are judged by element type. */
    static String classVerdict(String internalName) {
        String name = elementType(internalName);
        if (name == null) {
            return null; // primitive array
        }
        boolean rooted = false;
        for (String root : ALLOWED_ROOTS) {
            if (name.startsWith(root)) {
                rooted = true;
                break;
            }
        }
        if (!rooted) {
            return "package " + packageOf(name) + " is not on the strategy allowlist";
        }
        for (String denied : DENIED) {
            if (denied.endsWith("/") ? name.startsWith(denied)
                    : name.equals(denied) || name.startsWith(denied + "$")) {
                return dotted(denied.endsWith("/") ? denied.substring(0, denied.length() - 1)
                        : denied) + " is blocked in strategies";
            }
        }
        return null;
    }

    /** Reason a member of an (allowed) class may not be used, or null when it may. */
    static String memberVerdict(String owner, String name, String descriptor) {
        if (owner.equals("java/lang/Class") && !CLASS_METHODS.contains(name)) {
            return "reflection (java.lang.Class." + name + ") is blocked in strategies";
        }
        if (name.equals("wait") && (descriptor.equals("()V") || descriptor.equals("(J)V")
                || descriptor.equals("(JI)V"))) {
            return "Object.wait blocks the engine thread and is blocked in strategies";
        }
        if (owner.startsWith("java/util/") && name.startsWith("parallel")) {
            return dotted(owner) + "." + name + " starts pool threads and is blocked";
        }
        if (owner.startsWith("java/util/concurrent/") && (name.endsWith("Async")
                || name.equals("delayedExecutor") || name.equals("orTimeout")
                || name.equals("completeOnTimeout"))) {
            return dotted(owner) + "." + name + " runs on pool threads and is blocked";
        }
        if (owner.equals("java/util/concurrent/ConcurrentHashMap") && descriptor.startsWith("(J")) {
            return "parallel ConcurrentHashMap." + name + " runs on pool threads and is blocked";
        }
        if (owner.equals("java/util/concurrent/TimeUnit")
                && (name.equals("sleep") || name.startsWith("timed"))) {
            return "TimeUnit." + name + " blocks the engine thread and is blocked";
        }
        if (owner.startsWith("java/util/concurrent/") && blocksTheThread(owner, name, descriptor)) {
            return dotted(owner) + "." + name + " waits for another thread, which a strategy "
                    + "does not have, and is blocked";
        }
        if (owner.equals("java/util/Formatter") && name.equals("<init>")
                && descriptor.startsWith("(Ljava/lang/String;")) {
            return "java.util.Formatter(String fileName) writes files and is blocked";
        }
        if (owner.equals("java/util/stream/StreamSupport")
                && (descriptor.contains("Z)") || descriptor.contains("ZI)"))) {
            return "StreamSupport." + name + " with a parallel flag starts pool threads and is blocked";
        }
        if (name.equals("setDefault") && (owner.equals("java/util/Locale")
                || owner.equals("java/util/TimeZone") || owner.equals("java/util/SimpleTimeZone"))) {
            return dotted(owner) + ".setDefault changes the whole JVM for every strategy and is "
                    + "blocked";
        }
        if ((owner.equals("java/lang/Boolean") && name.equals("getBoolean"))
                || (owner.equals("java/lang/Integer") && name.equals("getInteger"))
                || (owner.equals("java/lang/Long") && name.equals("getLong"))) {
            return dotted(owner) + "." + name + " reads system properties and is blocked";
        }
        return null;
    }

    /** Waits of java.util.concurrent that only another thread could end: on the one engine
     * thread a strategy has, each parks it until the wall limit. */
    static final Set<String> WAITS = Set.of(
            "await", "awaitAdvance", "awaitAdvanceInterruptibly", "arriveAndAwaitAdvance",
            "acquire", "acquireUninterruptibly", "take", "takeFirst", "takeLast", "put",
            "putFirst", "putLast", "exchange", "transfer");

    private static boolean blocksTheThread(String owner, String name, String descriptor) {
        if (WAITS.contains(name)) {
            // put on a map is not a wait; put on a blocking queue is
            return !name.startsWith("put") || owner.contains("Blocking")
                    || owner.endsWith("/SynchronousQueue") || owner.endsWith("/DelayQueue")
                    || owner.endsWith("TransferQueue");
        }
        boolean timed = descriptor.contains("JLjava/util/concurrent/TimeUnit;")
                && !owner.equals("java/util/concurrent/TimeUnit"); // convert(...) only computes
        if (timed) {
            return true; // poll, offer, tryAcquire, get, awaitTermination ... with a timeout
        }
        return owner.endsWith("Future") && (name.equals("get") || name.equals("join"));
    }

    /** The class named by a descriptor-style array name, or the name itself; null if primitive. */
    static String elementType(String internalName) {
        int dims = 0;
        while (dims < internalName.length() && internalName.charAt(dims) == '[') {
            dims++;
        }
        if (dims == 0) {
            return internalName;
        }
        String rest = internalName.substring(dims);
        if (rest.startsWith("L") && rest.endsWith(";")) {
            return rest.substring(1, rest.length() - 1);
        }
        return null;
    }

    static String dotted(String internalName) {
        return internalName.replace('/', '.');
    }

    private static String packageOf(String internalName) {
        int slash = internalName.lastIndexOf('/');
        return slash < 0 ? "(default)" : dotted(internalName.substring(0, slash));
    }
}
