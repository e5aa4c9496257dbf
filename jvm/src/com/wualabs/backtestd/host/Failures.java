package com.wualabs.backtestd.host;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a Throwable that escaped user code into the structured error the client expects.
 *
 * <p>The cause chain is searched first for the errors that decide what the host does next: an
 * OutOfMemoryError leaves the heap in an unknown state (fatal: answer, then exit). A
 * StackOverflowError, a LinkageError about a JDK or engine class (a class whose static initialiser
 * failed stays failed for the life of the JVM, for every later tenant) or any other
 * VirtualMachineError is fatal too: the host answers and exits, so the next run starts on a fresh
 * JVM (and the client runs a request that met such an error again on it, see
 * {@code may_be_host_damage}). A LinkageError about one of the strategy's own classes is not:
 * they live in a fresh loader per run. Anything else is a user exception,
 * reported with the frames of the user's own classes so that a QTScript line map can point at the
 * user's text.
 *
 * <p>Every method of the Throwable may be user code (an overridden {@code getMessage()}), so
 * {@link #classify} runs on the guarded worker thread (see {@link Guard}) and its strings are
 * clipped.
 */
final class Failures {
    private static final int MAX_FRAMES = 10;
    private static final int MAX_CHAIN = 8;
    private static final int MAX_MESSAGE = 2_000;

    private Failures() {}

    static HostException classify(Throwable thrown, Set<String> userClasses, String what) {
        Throwable oom = find(thrown, OutOfMemoryError.class);
        if (oom != null) {
            return new HostException(HostException.OUT_OF_MEMORY, "the " + what
                    + " ran out of memory (heap limit " + (Runtime.getRuntime().maxMemory() >> 20)
                    + " MiB): " + oom.getMessage(), true);
        }
        Throwable soe = find(thrown, StackOverflowError.class);
        if (soe != null) {
            return withFrames(new HostException(HostException.STACK_OVERFLOW, "the " + what
                    + " overflowed the stack (runaway recursion?)" + where(soe, userClasses), true),
                    soe, userClasses);
        }
        boolean damaging = damaging(thrown, userClasses);
        Throwable shown = pick(thrown, userClasses);
        String shownMessage = clip(shown.getMessage());
        String text = shown.getClass().getName()
                + (shownMessage == null ? "" : ": " + shownMessage);
        HostException e = new HostException(HostException.USER_EXCEPTION,
                "the " + what + " threw " + text + where(shown, userClasses), damaging)
                .with("exception", shown.getClass().getName())
                .with("exception_message", shownMessage);
        List<Object> chain = new ArrayList<>();
        for (Throwable t = thrown; t != null && chain.size() < MAX_CHAIN; t = t.getCause()) {
            String tMessage = clip(t.getMessage());
            String message = tMessage == null ? "" : ": " + tMessage;
            chain.add(t.getClass().getName() + message);
            if (t.getCause() == t) {
                break;
            }
        }
        e.with("chain", chain);
        return withFrames(e, shown, userClasses);
    }

    /**
     * Whether the chain holds an error that may have left the JVM damaged for later requests (or
     * may come from damage an earlier request left): any {@code VirtualMachineError}, and any
     * {@code LinkageError} except those about a class the strategy itself defined. The user's
     * classes live in a fresh loader per run, so their failed initialisation dies with the run;
     * a JDK or engine class whose initialiser failed stays failed for the life of the JVM.
     */
    static boolean damaging(Throwable thrown, Set<String> userClasses) {
        int depth = 0;
        for (Throwable t = thrown; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
            if (t instanceof VirtualMachineError) {
                return true;
            }
            if (t instanceof LinkageError && !aboutUserClass(t, userClasses)) {
                return true;
            }
        }
        return false;
    }

    /** An initialisation failure of one of the strategy's own classes. */
    private static boolean aboutUserClass(Throwable t, Set<String> userClasses) {
        if (t instanceof ExceptionInInitializerError) {
            Throwable cause = t.getCause();
            if (cause == null) {
                return false;
            }
            for (StackTraceElement f : cause.getStackTrace()) {
                if ("<clinit>".equals(f.getMethodName())) {
                    return userClasses.contains(f.getClassName()); // the innermost initialiser
                }
            }
            return false;
        }
        if (t instanceof NoClassDefFoundError) {
            String message = t.getMessage();
            String prefix = "Could not initialize class ";
            return message != null && message.startsWith(prefix)
                    && userClasses.contains(message.substring(prefix.length()).trim());
        }
        return false;
    }

    /** A user-supplied message cut to {@link #MAX_MESSAGE} characters (null stays null). */
    static String clip(String message) {
        if (message == null || message.length() <= MAX_MESSAGE) {
            return message;
        }
        return message.substring(0, MAX_MESSAGE) + "... (" + (message.length() - MAX_MESSAGE)
                + " more characters)";
    }

    /** Whether the named exception class (simple name) is anywhere in the cause chain. */
    static Throwable findNamed(Throwable thrown, String simpleName) {
        int depth = 0;
        for (Throwable t = thrown; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
            if (t.getClass().getSimpleName().equals(simpleName)) {
                return t;
            }
        }
        return null;
    }

    private static Throwable find(Throwable thrown, Class<? extends Throwable> type) {
        int depth = 0;
        for (Throwable t = thrown; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
            if (type.isInstance(t)) {
                return t;
            }
        }
        return null;
    }

    /** The first exception in the chain thrown from user code, else the root cause. */
    private static Throwable pick(Throwable thrown, Set<String> userClasses) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = thrown; t != null && chain.size() < MAX_CHAIN; t = t.getCause()) {
            chain.add(t);
        }
        for (Throwable t : chain) {
            StackTraceElement[] trace = t.getStackTrace();
            if (trace.length > 0 && isUser(trace[0], userClasses)) {
                return t;
            }
        }
        for (Throwable t : chain) {
            for (StackTraceElement f : t.getStackTrace()) {
                if (isUser(f, userClasses)) {
                    return t;
                }
            }
        }
        return chain.get(chain.size() - 1);
    }

    private static String where(Throwable t, Set<String> userClasses) {
        for (StackTraceElement f : t.getStackTrace()) {
            if (isUser(f, userClasses)) {
                return " at " + f.getClassName() + "." + f.getMethodName() + "("
                        + f.getFileName() + ":" + f.getLineNumber() + ")";
            }
        }
        return "";
    }

    private static HostException withFrames(HostException e, Throwable t, Set<String> users) {
        List<Object> frames = new ArrayList<>();
        for (StackTraceElement f : t.getStackTrace()) {
            if (frames.size() >= MAX_FRAMES) {
                break;
            }
            if (isUser(f, users)) {
                Map<String, Object> frame = new LinkedHashMap<>();
                frame.put("class", f.getClassName());
                frame.put("method", f.getMethodName());
                frame.put("file", f.getFileName());
                frame.put("line", f.getLineNumber());
                frames.add(frame);
            }
        }
        return e.with("frames", frames);
    }

    private static boolean isUser(StackTraceElement f, Set<String> userClasses) {
        return userClasses.contains(f.getClassName());
    }
}
