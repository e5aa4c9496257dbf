package com.wualabs.backtestd.host;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * Runs code on a fresh worker thread under a CPU-time and a wall-clock limit.
 *
 * <p>A thread running arbitrary code cannot be stopped safely in Java, so the guard never tries:
 * when a limit is overrun it reports {@code limit_exceeded} as a fatal error and the host answers
 * and exits, leaving the restart to its Python supervisor. The CPU limit catches busy loops; the
 * wall limit catches code that blocks without burning CPU (a wait on a monitor, a lock, a latch).
 * The worker gets its own stack size so that deep recursion ends in a StackOverflowError at a
 * predictable depth instead of depending on the JVM's default.
 *
 * <p>A Throwable that escapes the task is user code too: its {@code getMessage()},
 * {@code getCause()} and {@code getStackTrace()} may be overridden to loop or allocate. So the
 * error report is built by {@code report} on the same guarded thread, under its own small budget
 * ({@link #REPORT_CPU_NANOS}), and only plain host data (a {@link HostException}) leaves the
 * worker. The host's main thread never calls a method of a user object.
 */
final class Guard {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final long POLL_MILLIS = 10;
    private static final int PARENT_CHECK_POLLS = 50;
    /** CPU time the error report of a failed task may take (user exception methods run here). */
    static final long REPORT_CPU_NANOS = 2_000_000_000L;
    /** Wall-clock time the error report may take. */
    static final long REPORT_WALL_NANOS = 5_000_000_000L;
    /** The process that started the host; if it goes away mid-run, the host exits at once. */
    private static final long PARENT_PID =
            ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);

    /** What the worker produced: a value or the report of the Throwable it ended with. */
    record Outcome<T>(T value, HostException error, long cpuNanos) {}

    /** Per-call limits. */
    record Limits(long cpuNanos, long wallNanos, long stackBytes) {}

    /**
     * Items run one after another inside one guarded call (the vectors of a batch run): the
     * limits then apply to each item on its own, counted from its {@link #start}, and an overrun
     * names the item. An item's failure is described under the same small report budget as a
     * failed task ({@link #describe}).
     */
    static final class Laps {
        private volatile int index = -1;
        private volatile long cpuStart;
        private volatile long wallStart = System.nanoTime();
        private volatile long reportCpu = -1;
        private volatile long reportWall = -1;

        /** Called on the worker thread when item {@code i} starts. */
        void start(int i) {
            cpuStart = THREADS.getCurrentThreadCpuTime();
            wallStart = System.nanoTime();
            index = i;
        }

        /** CPU the current item has used so far (worker thread only). */
        long cpuNanos() {
            return THREADS.getCurrentThreadCpuTime() - cpuStart;
        }

        int index() {
            return index;
        }

        /** The report of what the current item threw, built under the report budget. */
        HostException describe(String what, Throwable thrown,
                Function<Throwable, HostException> report) {
            reportWall = System.nanoTime();
            reportCpu = THREADS.getCurrentThreadCpuTime();
            try {
                return Guard.describe(what, thrown, report);
            } finally {
                reportCpu = -1;
                reportWall = -1;
            }
        }
    }

    /** State shared between the worker and the watching thread. */
    private static final class Shared<T> {
        T value;
        HostException error;
        /** Worker CPU and wall clock when the report started; -1 while the task runs. */
        volatile long reportCpu = -1;
        volatile long reportWall = -1;
    }

    private Guard() {}

    static {
        if (THREADS.isThreadCpuTimeSupported() && !THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
    }

    /**
     * Runs {@code task}; returns its value or the report {@code report} built (on the worker
     * thread) from what it threw. Throws a fatal {@code limit_exceeded} on overrun.
     */
    static <T> Outcome<T> call(String what, Callable<T> task,
            Function<Throwable, HostException> report, Limits limits) throws HostException {
        return call(what, task, report, limits, null);
    }

    /** As {@link #call}, with the limits applied to each of {@code laps}' items. */
    static <T> Outcome<T> call(String what, Callable<T> task,
            Function<Throwable, HostException> report, Limits limits, Laps laps)
            throws HostException {
        Shared<T> shared = new Shared<>();
        Thread worker = new Thread(null, () -> {
            try {
                shared.value = task.call();
            } catch (Throwable t) { // everything, including errors, is reported to the caller
                shared.reportWall = System.nanoTime();
                shared.reportCpu = THREADS.getCurrentThreadCpuTime();
                shared.error = describe(what, t, report);
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
                long now = System.nanoTime();
                long reportCpu = shared.reportCpu;
                long reportWall = shared.reportWall;
                if (reportCpu >= 0 && (cpu - reportCpu > REPORT_CPU_NANOS
                        || now - reportWall > REPORT_WALL_NANOS)) {
                    throw reportOverrun(what, cpu, now - wallStart);
                }
                if (laps != null) {
                    long lapCpu = cpu - laps.cpuStart;
                    long lapWall = now - laps.wallStart;
                    long lapReportCpu = laps.reportCpu;
                    long lapReportWall = laps.reportWall;
                    if (lapReportCpu >= 0 && (cpu - lapReportCpu > REPORT_CPU_NANOS
                            || now - lapReportWall > REPORT_WALL_NANOS)) {
                        throw reportOverrun(what, cpu, lapWall).with("vector", laps.index);
                    }
                    if (lapCpu > limits.cpuNanos() || lapWall > limits.wallNanos()) {
                        throw overrun(what, limits, lapCpu, lapWall).with("vector", laps.index);
                    }
                } else if (cpu > limits.cpuNanos() || now - wallStart > limits.wallNanos()) {
                    throw overrun(what, limits, cpu, now - wallStart);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostException(HostException.INTERNAL, "interrupted while waiting", true);
        }
        return new Outcome<>(shared.value, shared.error, cpu);
    }

    /** Builds the report; a report that itself fails is described without touching it again. */
    private static HostException describe(String what, Throwable thrown,
            Function<Throwable, HostException> report) {
        if (thrown instanceof HostException he) {
            return he; // raised by the host's own code inside the task
        }
        try {
            return report.apply(thrown);
        } catch (OutOfMemoryError e) {
            return new HostException(HostException.OUT_OF_MEMORY, "the " + what
                    + " ran out of memory while its exception was being described", true);
        } catch (Throwable e) {
            boolean damaging = e instanceof VirtualMachineError || e instanceof LinkageError;
            return new HostException(HostException.USER_EXCEPTION, "the " + what
                    + " threw an exception that could not be described (its own methods threw "
                    + e.getClass().getName() + ")", damaging)
                    .with("exception", e.getClass().getName());
        }
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

    private static HostException reportOverrun(String what, long cpu, long wall) {
        String message = String.format("the %s threw an exception whose description "
                + "(getMessage, getCause, getStackTrace or toString) did not finish within "
                + "%.0f s of CPU time; exceptions must describe themselves quickly", what,
                REPORT_CPU_NANOS / 1e9);
        return new HostException(HostException.LIMIT_EXCEEDED, message, true)
                .with("limit", "report")
                .with("cpu_ns", cpu)
                .with("wall_ns", wall);
    }
}
