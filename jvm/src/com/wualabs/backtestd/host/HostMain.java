package com.wualabs.backtestd.host;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine host process (its main class; the Python side supervises it as {@code EngineHost}):
 * a long-lived JVM child of a backtestd worker that compiles and runs strategies.
 *
 * <p>It speaks the framed protocol of {@link Frames} on stdin/stdout and nothing else goes to
 * stdout (System.out is redirected to stderr before anything can print). It greets its parent with
 * a versioned {@code hello}, then answers one request at a time. Stdin EOF means the parent is
 * gone, and the host exits. Besides one-shot compiles and runs it keeps live sessions
 * ({@link LiveService}): strategies fed a few market updates per request. After a fatal error (a run over its CPU or wall limit, which leaves a
 * thread that cannot be stopped; an OutOfMemoryError, which leaves the heap in doubt) it answers
 * and exits with a distinct code; its supervisor starts a fresh one.
 */
public final class HostMain {
    /** Protocol version; the client refuses a host that speaks another one. */
    public static final int PROTOCOL_VERSION = 1;
    /** Version of this host implementation. */
    public static final String HOST_VERSION = "1.0.0";

    static final int EXIT_LIMIT = 10;
    static final int EXIT_OUT_OF_MEMORY = 11;
    static final int EXIT_PROTOCOL = 12;
    static final int EXIT_FATAL = 13;

    private static final long DEFAULT_CPU_MS = 30_000;
    private static final long DEFAULT_INSPECT_CPU_MS = 10_000;
    private static final long DEFAULT_STACK_KB = 2_048;
    private static final long DEFAULT_COMPILE_CPU_MS = 10_000;
    /** javac recurses over the syntax tree; nesting deeper than this stack allows is refused. */
    private static final long COMPILE_STACK_KB = 8_192;

    private final DataOutputStream out;
    /** Released on OutOfMemoryError so that the error answer can still be built and sent. */
    private byte[] reserve = new byte[1 << 20];
    private final CompileService compiler;
    private final RunService runner;
    private final LiveService live;
    private final ErrorCounters counters;
    /** The JVM's error counts after the previous request (see {@link ErrorCounters}). */
    private ErrorCounters.Snapshot seen;
    private long compiles;
    private long runs;
    /** Milliseconds the host spent priming itself ({@link Prime}) before serving; -1 without. */
    private long primeMs = -1;
    /** The built-in warm-up ({@code --warm-up}), or null. */
    private WarmUp warm;
    /** The warm-up has ended and its error counts are behind us: no more pausing. */
    private boolean warmEnded;

    private HostMain(DataOutputStream out, ErrorCounters counters, long seriesCacheBytes,
            long columnCacheBytes) throws Exception {
        this.out = out;
        this.runner = new RunService(seriesCacheBytes, columnCacheBytes);
        this.live = new LiveService(runner);
        this.compiler = new CompileService(System.getProperty("java.class.path"));
        this.counters = counters;
        this.seen = counters.read();
    }

    /**
     * Entry point: {@code java -cp backtestd-engine.jar com.wualabs.backtestd.host.HostMain
     * [--no-prime] [--warm-up] [--series-cache-mb=N] [--column-cache-mb=N]}. Once it has said hello
     * the host primes its request path ({@link Prime}) before it reads a request, unless {@code
     * --no-prime}. With {@code --warm-up} it then runs its built-in {@link WarmUp} on a background
     * thread.
     */
    public static void main(String[] args) {
        DataOutputStream out = new DataOutputStream(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
        System.setOut(System.err);
        DataInputStream in = new DataInputStream(
                new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16));
        HostMain host;
        try {
            ErrorCounters counters = ErrorCounters.open();
            int engineClasses = initialiseEngineClasses();
            host = new HostMain(out, counters, cacheBytes(args, "--series-cache-mb="),
                    cacheBytes(args, "--column-cache-mb="));
            host.hello(engineClasses);
            if (!List.of(args).contains("--no-prime")) {
                host.primeMs = Prime.run(limits(Map.of(), DEFAULT_CPU_MS)); // a request's defaults
                host.rebaseErrorCounts(); // what priming made the JVM count is no request's doing
            }
            if (List.of(args).contains("--warm-up")) {
                host.warm = WarmUp.start();
            }
        } catch (Exception | LinkageError e) {
            System.err.println("engine host failed to start: " + e);
            Runtime.getRuntime().halt(EXIT_FATAL);
            return;
        }
        host.serve(in);
    }

    /**
     * Bytes of a cache the host keeps between runs ({@link RunService}): {@code
     * --series-cache-mb=N} for indicator series (0 computes none ahead), {@code
     * --column-cache-mb=N} for heap copies of the input columns (0 reads the mapped files);
     * each at most half the heap, by default a fifth.
     */
    static long cacheBytes(String[] args, String flag) {
        for (String a : args) {
            if (a.startsWith(flag)) {
                long mb = Long.parseLong(a.substring(flag.length()));
                if (mb < 0) {
                    throw new IllegalArgumentException(flag + "N must be 0 or more, got " + mb);
                }
                long bytes = Math.min(mb, 1L << 20) << 20; // no overflow in the shift
                return Math.min(bytes, Runtime.getRuntime().maxMemory() / 2);
            }
        }
        return Runtime.getRuntime().maxMemory() / 5;
    }

    /**
     * Initialises every class of the engine API before any user code runs. A static initialiser
     * that user code triggers could otherwise run on a nearly full stack and fail, and the JVM
     * would then refuse that class for every later run of every tenant. The classes are listed
     * from wherever the host was loaded — the engine jar, or a classes directory — and a host
     * that finds none refuses to start rather than run unprotected.
     *
     * @return how many engine classes were initialised
     */
    static int initialiseEngineClasses() throws IOException {
        ClassLoader loader = HostMain.class.getClassLoader();
        java.nio.file.Path location;
        try {
            location = java.nio.file.Path.of(
                    HostMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException | RuntimeException e) {
            throw new IOException("cannot locate the engine classes: " + e, e);
        }
        List<String> names = new java.util.ArrayList<>();
        String prefix = "com/wualabs/qtsurfer/engine/";
        if (java.nio.file.Files.isDirectory(location)) {
            try (java.util.stream.Stream<java.nio.file.Path> files =
                    java.nio.file.Files.walk(location.resolve(prefix))) {
                files.filter(f -> f.toString().endsWith(".class"))
                        .forEach(f -> names.add(location.relativize(f).toString()
                                .replace(java.io.File.separatorChar, '/')));
            }
        } else {
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(location.toFile())) {
                for (java.util.Enumeration<java.util.jar.JarEntry> it = jar.entries();
                        it.hasMoreElements();) {
                    names.add(it.nextElement().getName());
                }
            }
        }
        int initialised = 0;
        for (String name : names) {
            if (name.startsWith(prefix) && name.endsWith(".class") && !name.contains("-")) {
                try {
                    Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), true,
                            loader);
                    initialised++;
                } catch (Throwable ignored) {
                    // a class that cannot initialise here is reported when used
                }
            }
        }
        if (initialised == 0) {
            throw new IOException("found no engine classes to initialise under " + location);
        }
        return initialised;
    }

    private void hello(int engineClasses) throws IOException {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("type", "hello");
        h.put("protocol", PROTOCOL_VERSION);
        h.put("host_version", HOST_VERSION);
        h.put("engine_version", EngineInfo.version());
        h.put("pid", ProcessHandle.current().pid());
        h.put("java_version", System.getProperty("java.version"));
        h.put("max_heap", Runtime.getRuntime().maxMemory());
        h.put("engine_classes", engineClasses);
        Frames.write(out, h, List.of());
    }

    private void serve(DataInputStream in) {
        while (true) {
            Frames.Message message;
            try {
                message = Frames.read(in);
            } catch (IOException | RuntimeException e) {
                System.err.println("engine host: protocol error: " + e);
                answerQuietly(null, new HostException("protocol_error", String.valueOf(e)));
                Runtime.getRuntime().halt(EXIT_PROTOCOL);
                return;
            }
            if (message == null) {
                Runtime.getRuntime().halt(0); // stdin closed: the parent is gone
                return;
            }
            Object op = message.header().get("op");
            boolean warming = warm != null && !warmEnded;
            if (warming) {
                // A user run warms the same paths itself: the warm-up ends for good rather than
                // compete with it for a core. Anything else only pauses it. Either returns once
                // the warm-up thread is between slices; what it made the JVM count so far (a
                // StackOverflowError under a tiny heap, say) is not this request's doing.
                if ("run".equals(op) || "run_batch".equals(op)) {
                    warm.stop();
                } else {
                    warm.pause();
                }
                rebaseErrorCounts();
                warmEnded = warm.ended();
            }
            handle(message.header());
            if (warming && !warmEnded) {
                warm.resume();
            }
        }
    }

    private void handle(Map<String, Object> request) {
        Object id = request.get("id");
        Tripwire wire = Tripwire.arm();
        try {
            String op = Requests.string(request, "op");
            switch (op) {
                case "ping" -> answer(id, status(), List.of());
                case "compile" -> {
                    Map<String, Object> result = checked(wire, "compilation", compile(request));
                    answerThenRestartIfDamaged(id, "compilation", result, List.of());
                }
                case "run" -> {
                    RunService.Answer a = runner.run(request, limits(request, DEFAULT_CPU_MS));
                    runs++;
                    answerThenRestartIfDamaged(id, "strategy run",
                            checked(wire, "strategy run", a.header()), a.payloads());
                }
                case "run_batch" -> {
                    boolean each = RunService.checksEachVector(request);
                    RunService.Answer a = runner.runBatch(request, limits(request, DEFAULT_CPU_MS),
                            each ? () -> damage("strategy run") : () -> null);
                    runs += ((List<?>) a.header().get("results")).size();
                    answerBatchThenRestartIfDamaged(id, each,
                            checked(wire, "strategy run", a.header()), a.payloads());
                }
                case "live_open" -> {
                    Map<String, Object> a = live.openSession(request,
                            limits(request, DEFAULT_CPU_MS));
                    answerThenRestartIfDamaged(id, "strategy run",
                            checked(wire, "strategy run", a), List.of());
                }
                case "live_feed" -> {
                    RunService.Answer a = live.feed(request, limits(request, DEFAULT_CPU_MS));
                    answerThenRestartIfDamaged(id, "strategy run",
                            checked(wire, "strategy run", a.header()), a.payloads());
                }
                case "live_params" -> {
                    Map<String, Object> a = live.params(request, limits(request, DEFAULT_CPU_MS));
                    answerThenRestartIfDamaged(id, "strategy run",
                            checked(wire, "strategy run", a), List.of());
                }
                case "live_command" -> {
                    RunService.Answer a = live.command(request, limits(request, DEFAULT_CPU_MS));
                    answerThenRestartIfDamaged(id, "strategy run",
                            checked(wire, "strategy run", a.header()), a.payloads());
                }
                case "live_close" -> answer(id, live.close(request), List.of());
                case "shutdown" -> {
                    answer(id, new LinkedHashMap<>(), List.of());
                    Runtime.getRuntime().halt(0);
                }
                default -> throw new HostException(HostException.BAD_REQUEST, "unknown op " + op);
            }
        } catch (HostException e) {
            HostException tripped = e.fatal() ? null : wire.check("request");
            fail(id, tripped != null ? tripped : e);
        } catch (OutOfMemoryError e) {
            reserve = null;
            answerQuietly(id, new HostException(HostException.OUT_OF_MEMORY,
                    "the engine host ran out of memory: " + e.getMessage(), true));
            Runtime.getRuntime().halt(EXIT_OUT_OF_MEMORY);
        } catch (IOException e) {
            System.err.println("engine host: cannot write to the parent: " + e);
            Runtime.getRuntime().halt(EXIT_PROTOCOL);
        } catch (RuntimeException | StackOverflowError e) {
            e.printStackTrace();
            fail(id, new HostException(HostException.INTERNAL,
                    "engine host internal error: " + e));
        }
    }

    /** Takes the JVM's current error counts as the next request's starting point; an
     *  unreadable count is left for {@link #damage} to report after the request. */
    private void rebaseErrorCounts() {
        try {
            seen = counters.read();
        } catch (Exception | StackOverflowError e) {
            // damage() reads again after the request and reports it
        }
    }

    /**
     * What the request made the JVM throw that may have damaged it (a StackOverflowError or an
     * OutOfMemoryError anywhere, caught or not), as a sentence, or null. Unreadable counts count
     * as damage.
     */
    private String damage(String what) {
        try {
            ErrorCounters.Snapshot now = counters.read();
            String grown = now.grownSince(seen);
            seen = now;
            return grown == null ? null : "the " + what + " made the JVM throw " + grown
                    + ", which may have left a class initialiser failed for good; the engine "
                    + "host restarts after this answer";
        } catch (Exception | StackOverflowError e) {
            return "the engine host could not read the JVM's error counts after the " + what
                    + " (" + e + "); it restarts after this answer";
        }
    }

    /**
     * Sends a successful answer; when the request may have damaged the JVM, the answer says so
     * ({@code restart}) and the host exits after sending it, so the next request gets a fresh JVM.
     */
    private void answerThenRestartIfDamaged(Object id, String what, Map<String, Object> body,
            List<byte[]> payloads) throws IOException {
        answerThenRestart(id, damage(what), body, payloads);
    }

    /**
     * {@link #answerThenRestartIfDamaged} for a {@code run_batch}. When its vectors were not
     * checked one by one and more than one ran, a damage found after it may come from any of
     * them and may have reached every vector after that one: none of their results is answered.
     * The answer holds no result and carries {@code recheck} (and {@code restart}): the client
     * sends the same vectors again to the next JVM with {@code check_each}, which stops at the
     * vector that did it. A batch of one vector is answered as a {@code run} is.
     */
    private void answerBatchThenRestartIfDamaged(Object id, boolean checkedEach,
            Map<String, Object> body, List<byte[]> payloads) throws IOException {
        String damage = damage("strategy run");
        if (damage != null && !checkedEach && ((List<?>) body.get("results")).size() > 1) {
            body.put("results", List.of());
            body.put("recheck", true);
            payloads = List.of();
        }
        answerThenRestart(id, damage, body, payloads);
    }

    /** Sends a successful answer; with {@code damage}, or a batch's own {@code restart}, the
     *  answer carries it and the host exits after sending it. */
    private void answerThenRestart(Object id, String damage, Map<String, Object> body,
            List<byte[]> payloads) throws IOException {
        if (damage == null && body.get("restart") instanceof String found) {
            damage = found; // a batch stopped at the vector that did it
        }
        if (damage != null) {
            body.put("restart", damage);
            System.err.println("engine host: " + damage);
        }
        answer(id, body, payloads);
        if (damage != null) {
            Runtime.getRuntime().halt(EXIT_FATAL);
        }
    }

    /** The answer body, unless the request left a thread or a changed default behind. */
    private static Map<String, Object> checked(Tripwire wire, String what,
            Map<String, Object> body) throws HostException {
        HostException tripped = wire.check(what);
        if (tripped != null) {
            throw tripped;
        }
        return body;
    }

    /**
     * Sends an error answer; after a fatal one the host exits with the matching code. A request
     * that may have damaged the JVM (see {@link #damage}) makes any error fatal.
     */
    private void fail(Object id, HostException e) {
        boolean fatal = e.fatal();
        if (!fatal) {
            String damage = damage("request");
            if (damage != null) {
                e.with("fatal", true).with("restart", damage);
                System.err.println("engine host: " + damage);
                fatal = true;
            }
        }
        if (fatal) {
            reserve = null;
        }
        answerQuietly(id, e);
        if (fatal) {
            int code = e.kind().equals(HostException.OUT_OF_MEMORY) ? EXIT_OUT_OF_MEMORY
                    : e.kind().equals(HostException.LIMIT_EXCEEDED) ? EXIT_LIMIT : EXIT_FATAL;
            Runtime.getRuntime().halt(code);
        }
    }

    private Map<String, Object> compile(Map<String, Object> request) throws HostException {
        String source = Requests.string(request, "source");
        String expected = Requests.optionalString(request, "class_name");
        long t0 = System.nanoTime();
        Map<String, Object> result = compiler.compile(source, expected, javacLimits(request),
                limits(request, DEFAULT_INSPECT_CPU_MS));
        compiles++;
        result.put("elapsed_ns", System.nanoTime() - t0);
        return result;
    }

    private static Guard.Limits limits(Map<String, Object> request, long defaultCpuMs)
            throws HostException {
        long cpuMs = Requests.longValue(request, "cpu_limit_ms", defaultCpuMs);
        long wallMs = Requests.longValue(request, "wall_limit_ms", 2 * cpuMs + 5_000);
        long stackKb = Requests.longValue(request, "stack_kb", DEFAULT_STACK_KB);
        if (cpuMs <= 0 || wallMs <= 0 || stackKb < 64) {
            throw new HostException(HostException.BAD_REQUEST, "limits must be positive");
        }
        return new Guard.Limits(cpuMs * 1_000_000L, wallMs * 1_000_000L, stackKb * 1024L);
    }

    /** javac's budget: {@code compile_cpu_limit_ms} (default 10 s), wall twice that + 5 s. */
    private static Guard.Limits javacLimits(Map<String, Object> request) throws HostException {
        long cpuMs = Requests.longValue(request, "compile_cpu_limit_ms", DEFAULT_COMPILE_CPU_MS);
        if (cpuMs <= 0) {
            throw new HostException(HostException.BAD_REQUEST, "limits must be positive");
        }
        return new Guard.Limits(cpuMs * 1_000_000L, (2 * cpuMs + 5_000) * 1_000_000L,
                COMPILE_STACK_KB * 1024L);
    }

    private Map<String, Object> status() {
        Runtime rt = Runtime.getRuntime();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("heap_used", rt.totalMemory() - rt.freeMemory());
        s.put("heap_committed", rt.totalMemory());
        s.put("heap_max", rt.maxMemory());
        s.put("compiles", compiles);
        s.put("runs", runs);
        s.put("uptime_ms", ManagementFactory.getRuntimeMXBean().getUptime());
        s.put("live_sessions", live.count());
        s.put("prime_ms", primeMs);
        if (warm != null) {
            s.put("warm_up", warm.status());
        }
        Map<String, Object> seriesCache = runner.seriesCacheStatus();
        if (seriesCache != null) {
            s.put("series_cache", seriesCache);
        }
        Map<String, Object> columns = runner.columnCacheStatus();
        if (columns != null) {
            s.put("column_cache", columns);
        }
        return s;
    }

    private void answer(Object id, Map<String, Object> body, List<byte[]> payloads)
            throws IOException {
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("id", id);
        header.put("status", "ok");
        header.putAll(body);
        Frames.write(out, header, payloads);
    }

    private void answerQuietly(Object id, HostException e) {
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("id", id);
        header.put("status", "error");
        header.put("error", e.toJson());
        try {
            Frames.write(out, header, List.of());
        } catch (IOException | RuntimeException io) {
            System.err.println("engine host: cannot send error answer: " + io);
        }
    }
}
