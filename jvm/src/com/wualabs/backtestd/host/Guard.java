package com.wualabs.backtestd.host;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.Callable;

/**
 * Runs user code on a fresh worker thread under a CPU-time and a wall-clock limit.
 *
 * <p>A thread running arbitrary code cannot be stopped safely in Java, so the guard never tries:
 * when a limit is overrun it reports {@code limit_exceeded} as a fatal error and the host answers
 * and exits, leaving the restart to its Python supervisor. The CPU limit catches busy loops; the
 * wall limit catches code that blocks without burning CPU (a wait on a monitor, a lock, a latch).
 * The worker gets its own stack size so that deep recursion ends in a StackOverflowError at a
 * predictable depth instead of depending on the JVM's default.
 */
final class Guard {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final long POLL_MILLIS = 10;
    private static final int PARENT_CHECK_POLLS = 50;
    /** The process that started the host; if it goes away mid-run, the host exits at once. */
    private static final long PARENT_PID =
            ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);

    /** What the worker produced: a value or the Throwable it ended with. */
    record Outcome<T>(T value, Throwable error, long cpuNanos) {}

    /** Per-call limits. */
    record Limits(long cpuNanos, long wallNanos, long stackBytes) {}

    private Guard() {}

    static {
        if (THREADS.isThreadCpuTimeSupported() && !THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
    }

    /** Runs {@code task}; returns its outcome or throws a fatal {@code limit_exceeded}. */
    static <T> Outcome<T> call(String what, Callable<T> task, Limits limits)
            throws HostException {
        Object[] result = new Object[2];
        Thread worker = new Thread(null, () -> {
            try {
                result[0] = task.call();
            } catch (Throwable t) { // everything, including errors, is reported to the caller
                result[1] = t;
            }
        }, "strategy-worker", limits.stackBytes());
        worker.setDaemon(true);
        long wallStart = System.nanoTime();
        worker.start();
        long cpu = 0;
        int polls = 0;
        try {
            while (true) {
                worker.join(POLL_MILLIS);
                if (++polls % PARENT_CHECK_POLLS == 0) {
                    exitIfOrphaned();
                }
                long measured = THREADS.getThreadCpuTime(worker.getId());
                if (measured > 0) {
                    cpu = measured;
                }
                if (!worker.isAlive()) {
                    break;
                }
                long wall = System.nanoTime() - wallStart;
                if (cpu > limits.cpuNanos() || wall > limits.wallNanos()) {
                    throw overrun(what, limits, cpu, wall);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostException(HostException.INTERNAL, "interrupted while waiting", true);
        }
        @SuppressWarnings("unchecked")
        T value = (T) result[0];
        return new Outcome<>(value, (Throwable) result[1], cpu);
    }

    /** Stdin EOF is only seen between requests; during a long run, watch the parent instead. */
    private static void exitIfOrphaned() {
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        if (PARENT_PID > 0 && parent != PARENT_PID) {
            System.err.println("engine host: parent process " + PARENT_PID + " is gone; exiting");
            Runtime.getRuntime().halt(0);
        }
    }

    private static HostException overrun(String what, Limits limits, long cpu, long wall) {
        boolean cpuBound = cpu > limits.cpuNanos();
        String message = cpuBound
                ? String.format("the %s used more than its CPU-time limit of %.1f s", what,
                        limits.cpuNanos() / 1e9)
                : String.format("the %s ran longer than its wall-clock limit of %.1f s "
                        + "(blocked or waiting)", what, limits.wallNanos() / 1e9);
        return new HostException(HostException.LIMIT_EXCEEDED, message, true)
                .with("limit", cpuBound ? "cpu" : "wall")
                .with("cpu_ns", cpu)
                .with("wall_ns", wall);
    }
}
