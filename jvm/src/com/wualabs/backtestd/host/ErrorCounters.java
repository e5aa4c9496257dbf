package com.wualabs.backtestd.host;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Counts the StackOverflowErrors and OutOfMemoryErrors the JVM itself has thrown, in any thread,
 * whether or not anything caught them.
 *
 * <p>A static initialiser that dies of either error leaves its class failed for the life of the
 * JVM ({@code NoClassDefFoundError: Could not initialize class ...} for every later tenant). A
 * strategy can hit one on a nearly full stack (or heap) inside a JDK class it touches for the
 * first time and swallow the error — in a {@code catch}, a {@code finally} that returns, the
 * suppressed exception of a try-with-resources, or inside a JDK method that catches
 * {@code Throwable} ({@code CompletableFuture}, {@code FutureTask}) — and finish normally. No
 * static rule finds every such path, so the host asks the JVM instead: HotSpot counts every
 * StackOverflowError and OutOfMemoryError it throws (for its crash reports) and prints the counts
 * in the {@code VM.info} diagnostic command ({@code StackOverflowErrors=N},
 * {@code OutOfMemoryError java_heap_errors=N}, ...; a zero count is not printed). Reading them
 * costs about a millisecond, once per request. A request during which either count grew leaves a
 * JVM whose classes cannot be trusted: the host answers it and exits.
 *
 * <p>The JVM's own errors are counted, not the ones user code constructs and throws, so
 * {@code throw new StackOverflowError()} does not count (and cannot damage a class either).
 */
final class ErrorCounters {
    private static final String SOE = "StackOverflowErrors=";
    private static final String OOM = "OutOfMemoryError ";

    /** Counts at one moment: stack overflows, and every kind of OutOfMemoryError summed. */
    record Snapshot(long stackOverflows, long outOfMemory) {
        /** What grew since {@code before}, or null when nothing did. */
        String grownSince(Snapshot before) {
            List<String> grown = new ArrayList<>();
            if (stackOverflows > before.stackOverflows) {
                grown.add((stackOverflows - before.stackOverflows) + " StackOverflowError(s)");
            }
            if (outOfMemory > before.outOfMemory) {
                grown.add((outOfMemory - before.outOfMemory) + " OutOfMemoryError(s)");
            }
            return grown.isEmpty() ? null : String.join(" and ", grown);
        }
    }

    private final MBeanServer server;
    private final ObjectName command;

    private ErrorCounters() throws Exception {
        server = ManagementFactory.getPlatformMBeanServer();
        command = new ObjectName("com.sun.management:type=DiagnosticCommand");
    }

    /**
     * Opens the counters and proves they work: a throwaway thread overflows its own (small)
     * stack in host code that initialises no class, and the count must grow. A JVM whose
     * counters cannot be read fails the host's start, because it could not notice damage.
     */
    static ErrorCounters open() throws Exception {
        ErrorCounters counters = new ErrorCounters();
        Snapshot before = counters.read();
        Thread probe = new Thread(null, ErrorCounters::overflow, "error-counter-probe", 256 * 1024);
        probe.start();
        probe.join();
        Snapshot after = counters.read();
        if (after.stackOverflows() <= before.stackOverflows()) {
            throw new IllegalStateException("this JVM does not report its StackOverflowError "
                    + "count in VM.info; the engine host cannot detect a damaged JVM");
        }
        return counters;
    }

    private static void overflow() {
        try {
            dive(0);
        } catch (StackOverflowError expected) {
            // counted by the JVM
        }
    }

    private static int dive(int n) {
        return dive(n + 1) + 1;
    }

    /** The current counts. */
    Snapshot read() throws Exception {
        String info = (String) server.invoke(command, "vmInfo", new Object[] {null},
                new String[] {String[].class.getName()});
        return parse(info);
    }

    /** Parses {@code VM.info} output (package-private for the checks). */
    static Snapshot parse(String info) {
        long soe = 0;
        long oom = 0;
        for (String line : info.split("\n")) {
            String l = line.trim();
            if (l.startsWith(SOE)) {
                soe += number(l.substring(SOE.length()));
            } else if (l.startsWith(OOM) && l.indexOf('=') > 0) {
                oom += number(l.substring(l.indexOf('=') + 1));
            }
        }
        return new Snapshot(soe, oom);
    }

    private static long number(String text) {
        int end = 0;
        while (end < text.length() && Character.isDigit(text.charAt(end))) {
            end++;
        }
        return end == 0 ? 0 : Long.parseLong(text.substring(0, end));
    }
}
