package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.EventFrame;
import com.wualabs.qtsurfer.engine.internal.RunSeries;
import com.wualabs.qtsurfer.engine.internal.SeriesCache;
import com.wualabs.qtsurfer.engine.internal.SignalLog;
import com.wualabs.qtsurfer.engine.runtime.PropertyInfo;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;
import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code run} request: verify, load in a sandbox loader, start through the harness and feed
 * every row of the memory-mapped columns in a tight loop on a guarded worker thread.
 *
 * <p>Class files arrive from the Python side (possibly from the object store), so they are
 * verified again before loading; the verdict is cached by content digest because a sweep runs the
 * same classes many times. Static state never leaks from one parameter vector to the next: a
 * strategy whose classes could hold any runs each vector on a fresh class loader, and only one
 * whose classes cannot shares a loader between runs ({@link Loaders}, {@link SharedLoaders}).
 */
final class RunService {
    private static final int VERIFIED_CACHE = 256;
    /** JSON characters of info-signal fields one run may return (docs/engine-host.md). */
    static final long MAX_INFO_CHARS = 8L << 20;

    private final Set<String> verified = new LinkedHashSet<>();
    /** Series of data-fed indicators shared by the runs of one strategy over one dataset, or null. */
    private final SeriesCache seriesCache;
    private final ColumnCache columnCache;
    /** Loaders of stateless strategies kept between requests. */
    private final SharedLoaders keptLoaders = new SharedLoaders();

    /**
     * @param seriesCacheBytes bytes of indicator series kept between runs; 0 computes none ahead
     * @param columnCacheBytes bytes of heap copies of input columns kept between runs; 0 keeps none
     */
    RunService(long seriesCacheBytes, long columnCacheBytes) {
        this.seriesCache = seriesCacheBytes > 0 ? new SeriesCache(seriesCacheBytes) : null;
        this.columnCache = columnCacheBytes > 0 ? new ColumnCache(columnCacheBytes) : null;
    }

    /** A ready answer: header fields plus binary payloads. */
    record Answer(Map<String, Object> header, List<byte[]> payloads) {}

    /** What the worker thread hands back. */
    record Collected(Map<String, Object> header, List<byte[]> payloads, long infoChars) {}

    Answer run(Map<String, Object> req, Guard.Limits limits) throws HostException {
        Map<String, byte[]> classes = decodeClasses(req.get("class_files"));
        String digest = verify(classes);
        String mainClass = Requests.string(req, "main_class");
        if (!classes.containsKey(mainClass)) {
            throw new HostException(HostException.BAD_REQUEST,
                    "main class " + mainClass + " is not among the class files");
        }
        Map<String, String> params = Requests.stringMap(req.get("params"));
        Instrument instrument = Requests.instrument(req.get("instrument"));
        ColumnSet columns = ColumnSet.map(Requests.string(req, "kind"),
                Requests.map(req.get("columns"), "columns"));
        int[] range = Requests.rows(req.get("rows"), columns.rows);
        columns.heap = heldColumns(columns, false);
        RunSeries series = seriesFor(digest, columns, range, instrument);
        Loaders loaders = new Loaders(classes, digest, keptLoaders);
        ClassLoader loader = loaders.next();
        long[] progress = new long[2];
        Guard.Outcome<Collected> outcome = ended(series, () -> Guard.call("strategy run",
                () -> feed(loader, mainClass, params, instrument, columns, range, series, progress),
                thrown -> Failures.classify(thrown, classes.keySet(), "strategy run"), limits));
        if (outcome.error() != null) {
            loaders.discard();
            throw outcome.error().with("events", progress[0]);
        }
        Map<String, Object> header = outcome.value().header();
        header.put("events", progress[0]);
        header.put("elapsed_ns", progress[1]);
        header.put("cpu_ns", outcome.cpuNanos());
        return new Answer(header, outcome.value().payloads());
    }

    /** Most parameter vectors one {@code run_batch} request may carry. */
    static final int MAX_BATCH = 256;
    /**
     * Output (payload bytes plus info characters) after which a batch answers with the vectors it
     * has run so far: a batch answer stays within one run's bound plus this, and the client sends
     * the rest again.
     */
    static final long BATCH_OUTPUT_BUDGET = 32L << 20;

    /**
     * The {@code run_batch} request: one {@code run} per entry of {@code vectors} (each a params
     * map), over columns mapped once and classes verified once, answered together. Each vector
     * still gets its own class loader and strategy instance, and the limits apply to each vector
     * on its own ({@link Guard.Laps}). A vector that throws, breaks a property or an output cap
     * gets an error entry and the next one runs; a failure that leaves the host in doubt (an
     * overrun, out of memory, a stack overflow) fails the whole request as it fails a run,
     * naming the vector in {@code vector}. The answer's {@code results} hold one entry per
     * vector run, {@code status} ok (the fields of a run answer) or error ({@code error}); each
     * ok entry owns the next three payloads. Once the output passes {@link #BATCH_OUTPUT_BUDGET},
     * or once a vector made the JVM throw an error that may have damaged it ({@code damage},
     * asked after every vector; the answer then carries {@code restart}), the answer holds only
     * the vectors run so far (at least one). {@code HostMain} passes a {@code damage} that reads
     * the JVM's error counts only when the request asks for {@code check_each}, and otherwise
     * reads them once, after the batch: a read costs about 2 ms, a fifth of a sweep's time when
     * done after every vector.
     */
    Answer runBatch(Map<String, Object> req, Guard.Limits limits,
            java.util.function.Supplier<String> damage) throws HostException {
        Map<String, byte[]> classes = decodeClasses(req.get("class_files"));
        String digest = verify(classes);
        String mainClass = Requests.string(req, "main_class");
        if (!classes.containsKey(mainClass)) {
            throw new HostException(HostException.BAD_REQUEST,
                    "main class " + mainClass + " is not among the class files");
        }
        if (!(req.get("vectors") instanceof List<?> raw) || raw.isEmpty()
                || raw.size() > MAX_BATCH) {
            throw new HostException(HostException.BAD_REQUEST,
                    "vectors must be a list of 1 to " + MAX_BATCH + " params maps");
        }
        List<Map<String, String>> vectors = new ArrayList<>();
        for (Object v : raw) {
            vectors.add(Requests.stringMap(v));
        }
        Instrument instrument = Requests.instrument(req.get("instrument"));
        ColumnSet columns = ColumnSet.map(Requests.string(req, "kind"),
                Requests.map(req.get("columns"), "columns"));
        int[] range = Requests.rows(req.get("rows"), columns.rows);
        columns.heap = heldColumns(columns, true);
        RunSeries series = seriesFor(digest, columns, range, instrument);
        Guard.Laps laps = new Guard.Laps();
        List<Object> results = new ArrayList<>();
        List<byte[]> payloads = new ArrayList<>();
        long[] output = new long[1];
        String[] restart = new String[1];
        Loaders loaders = new Loaders(classes, digest, keptLoaders);
        Guard.Outcome<Object> outcome = ended(series, () -> Guard.call("strategy run", () -> {
            for (int i = 0; i < vectors.size() && output[0] < BATCH_OUTPUT_BUDGET; i++) {
                laps.start(i);
                results.add(runOne(loaders, classes, mainClass, vectors.get(i), instrument,
                        columns, range, series, laps, payloads, output));
                // A vector that made the JVM throw (and swallow) a StackOverflowError or an
                // OutOfMemoryError may have damaged it for the next one: stop here, answer what
                // ran, and let the host restart (HostMain.answerThenRestartIfDamaged).
                restart[0] = damage.get();
                if (restart[0] != null) {
                    break;
                }
            }
            return null;
        }, thrown -> Failures.classify(thrown, classes.keySet(), "strategy run"), limits, laps));
        if (outcome.error() != null) {
            throw outcome.error().with("vector", laps.index());
        }
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("results", results);
        header.put("cpu_ns", outcome.cpuNanos());
        if (restart[0] != null) {
            header.put("restart", restart[0]);
        }
        return new Answer(header, payloads);
    }

    /** Whether a {@code run_batch} request asks for the JVM's error counts after every vector. */
    static boolean checksEachVector(Map<String, Object> req) {
        return Boolean.TRUE.equals(req.get("check_each"));
    }

    /** A guarded call that returns only once the strategy's thread has ended, or throws. */
    @FunctionalInterface
    private interface GuardedCall<T> {
        Guard.Outcome<T> call() throws HostException;
    }

    /**
     * {@code call}, then the request's series given back to the cache ({@link RunSeries#release}): its
     * code has stopped. A call that throws (an overrun: the code may still run until the host exits)
     * lets them go without their arrays ever being computed into again.
     */
    private static <T> Guard.Outcome<T> ended(RunSeries series, GuardedCall<T> call)
            throws HostException {
        if (series == null) {
            return call.call();
        }
        boolean stopped = false;
        try {
            Guard.Outcome<T> outcome = call.call();
            stopped = true;
            return outcome;
        } finally {
            if (stopped) {
                series.release();
            } else {
                series.abandon();
            }
        }
    }

    /** One vector of a batch, on the guarded worker thread: its answer entry. */
    private static Map<String, Object> runOne(Loaders loaders, Map<String, byte[]> classes,
            String mainClass, Map<String, String> params, Instrument instrument,
            ColumnSet columns, int[] range, RunSeries series, Guard.Laps laps,
            List<byte[]> payloads, long[] output) throws HostException {
        long[] progress = new long[2];
        Map<String, Object> entry;
        try {
            ClassLoader loader = loaders.next();
            Collected collected = feed(loader, mainClass, params, instrument, columns, range,
                    series, progress);
            entry = collected.header();
            entry.put("status", "ok");
            payloads.addAll(collected.payloads());
            output[0] += collected.infoChars();
            for (byte[] payload : collected.payloads()) {
                output[0] += payload.length;
            }
        } catch (Throwable thrown) { // the vector's own failure; fatal ones end the batch
            loaders.discard();
            HostException e = laps.describe("strategy run", thrown,
                    t -> Failures.classify(t, classes.keySet(), "strategy run"));
            e.with("events", progress[0]);
            if (e.fatal()) {
                throw e;
            }
            entry = new LinkedHashMap<>();
            entry.put("status", "error");
            entry.put("error", e.toJson());
        }
        entry.put("events", progress[0]);
        entry.put("elapsed_ns", progress[1]);
        entry.put("cpu_ns", laps.cpuNanos());
        return entry;
    }

    /**
     * The class loaders of a request's vectors: the strategy's loader kept between requests
     * ({@link SharedLoaders}) when its classes cannot hold static state ({@link StaticState}) and
     * the JVM allows it, else a fresh one per vector, or, for such classes on a JVM that inflates
     * reflection, one per {@link #SHARE_LIMIT} vectors.
     */
    static final class Loaders {
        /**
         * Vectors per loader without {@link SharedLoaders}. Below the JDK's default reflection
         * inflation threshold (15 calls): past it, the constructor and setters a run calls
         * reflectively once each would get a generated accessor class defined under the sandbox
         * loader, which cannot link it.
         */
        static final int SHARE_LIMIT = 8;

        private final Map<String, byte[]> classes;
        private final boolean share;
        private final SharedLoaders kept;
        private final String digest;
        private ClassLoader current;
        private int uses;

        /** @param kept the host's kept loaders, or null to keep none beyond this request */
        Loaders(Map<String, byte[]> classes, String digest, SharedLoaders kept) {
            this.classes = classes;
            this.digest = digest;
            this.share = StaticState.none(classes);
            this.kept = share && kept != null && SharedLoaders.available() ? kept : null;
        }

        ClassLoader next() {
            if (kept != null) {
                return kept.get(digest, classes);
            }
            if (!share || current == null || uses >= SHARE_LIMIT) {
                current = new SandboxClassLoader(classes, HostMain.class.getClassLoader());
                uses = 0;
            }
            uses++;
            return current;
        }

        /** After a failed vector the next one starts on a fresh loader (linkage errors stick). */
        void discard() {
            current = null;
            if (kept != null) {
                kept.discard(digest);
            }
        }
    }

    /**
     * One strategy instance fed over {@code range} and its output collected: the core that a
     * single run and every vector of a batch share. {@code progress} gets the events fed and
     * the feed's nanoseconds, also when the feed throws. With {@code series}, a strategy whose
     * every row is one event of its group (the fast path of its data kind) takes the values of
     * its data-fed indicators from there.
     */
    private static Collected feed(ClassLoader loader, String mainClass, Map<String, String> params,
            Instrument instrument, ColumnSet columns, int[] range, RunSeries series,
            long[] progress) throws Exception {
        Class<?> strategy = Class.forName(mainClass, false, loader);
        StrategyRun run = start(strategy, params, instrument);
        if (series != null && run.usesFastPathFor(columns.kind)) {
            StrategyInternals.useSeries(run.strategy(), series);
        }
        long t0 = System.nanoTime();
        try {
            Feeder.feed(run, columns, range[0], range[1], progress);
        } finally {
            progress[1] = System.nanoTime() - t0;
        }
        return collect(run);
    }

    /** Starts the strategy; a property problem becomes a {@code property_error}. */
    static StrategyRun start(Class<?> strategy, Map<String, String> params,
            Instrument instrument) throws Exception {
        try {
            return StrategyHarness.start(strategy, params, instrument);
        } catch (Exception e) {
            if (Failures.findNamed(e, "PropertyException") == null) {
                throw e;
            }
            List<Object> names = new ArrayList<>();
            for (PropertyInfo p : StrategyHarness.declaredProperties(strategy)) {
                names.add(p.name());
            }
            throw new HostException(HostException.PROPERTY_ERROR,
                    String.valueOf(Failures.findNamed(e, "PropertyException").getMessage()))
                    .with("declared", names)
                    .with("given", new ArrayList<>(params.keySet()));
        }
    }

    /** Reads the run's results on the worker thread (user toString() may run here). */
    static Collected collect(StrategyRun run) throws HostException {
        if (run.signalsDropped() > 0) {
            throw new HostException(HostException.OUTPUT_LIMIT, String.format("the strategy "
                    + "emitted %d signals; a run may emit at most %d (buys, sells and info "
                    + "signals together): emit fewer signals or backtest a shorter range",
                    run.signalCount() + run.signalsDropped(), SignalLog.MAX_SIGNALS))
                    .with("limit", "signals");
        }
        int n = run.signalCount();
        long[] ts = run.signalTs();
        byte[] side = run.signalSide();
        double[] price = run.signalPrice();
        n = Math.max(0, Math.min(n, Math.min(ts.length, Math.min(side.length, price.length))));
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("signals", n);
        // Sparse: only the signals that carry fields, with their indices. Most signals are plain
        // buys and sells, and one "{}" per signal (about 15,000 a vector in a sweep) made the
        // header's JSON, and its parsing on the Python side, the largest part of an answer.
        List<Object> infoAt = new ArrayList<>();
        List<Object> info = new ArrayList<>();
        int[] fieldsAt = run.signalFieldIndices();
        List<Map<String, Object>> fields = run.signalFields();
        JsonSafe json = new JsonSafe(MAX_INFO_CHARS);
        for (int k = 0; k < fieldsAt.length; k++) {
            infoAt.add(fieldsAt[k]);
            info.add(json.of(fields.get(k)));
        }
        header.put("info_at", infoAt);
        header.put("info", info);
        List<Object> notices = new ArrayList<>();
        if (run.notices() != null) {
            run.notices().forEach(s -> notices.add(String.valueOf(s)));
        }
        header.put("notices", notices);
        header.put("execution_mode", String.valueOf(run.executionMode()));
        header.put("percent_gain", run.percentGain());
        header.put("multi_entry", run.multiEntryEnabled());
        header.put("precomputed_indicators", StrategyInternals.precomputedIndicators(run.strategy()));
        header.put("stepless_events", StrategyInternals.steplessEvents(run.strategy()));
        ByteBuffer tsBytes = ByteBuffer.allocate(n * 8).order(ByteOrder.LITTLE_ENDIAN);
        tsBytes.asLongBuffer().put(ts, 0, n);
        ByteBuffer priceBytes = ByteBuffer.allocate(n * 8).order(ByteOrder.LITTLE_ENDIAN);
        priceBytes.asDoubleBuffer().put(price, 0, n);
        byte[] sideBytes = new byte[n];
        System.arraycopy(side, 0, sideBytes, 0, n);
        return new Collected(header, List.of(tsBytes.array(), sideBytes, priceBytes.array()),
                json.used());
    }

    static Map<String, byte[]> decodeClasses(Object value) throws HostException {
        Map<String, Object> encoded = Requests.map(value, "class_files");
        Map<String, byte[]> classes = new TreeMap<>();
        for (Object b64 : encoded.values()) {
            if (!(b64 instanceof String s)) {
                throw new HostException(HostException.BAD_REQUEST, "class files must be base64");
            }
            try {
                byte[] bytes = Base64.getDecoder().decode(s);
                classes.put(ClassFileReader.nameOf(bytes).replace('/', '.'), bytes);
            } catch (IOException | RuntimeException e) {
                throw new HostException(HostException.BAD_REQUEST, "invalid class file: " + e);
            }
        }
        return classes;
    }

    /** Verifies the classes (once per content) and returns their digest. */
    String verify(Map<String, byte[]> classes) throws HostException {
        String digest = digest(classes);
        if (verified.contains(digest)) {
            return digest;
        }
        List<BytecodeVerifier.Violation> violations;
        try {
            violations = BytecodeVerifier.verify(classes, (c, m) -> -1);
        } catch (IOException | RuntimeException e) {
            throw new HostException(HostException.BAD_REQUEST, "invalid class file: " + e);
        }
        if (!violations.isEmpty()) {
            List<Object> messages = new ArrayList<>();
            violations.forEach(v -> messages.add(v.message()));
            List<String> shown = new ArrayList<>();
            messages.stream().limit(5).forEach(m -> shown.add(String.valueOf(m)));
            String more = messages.size() > 5 ? "; and " + (messages.size() - 5) + " more" : "";
            throw new HostException(HostException.SANDBOX_VIOLATION,
                    "the strategy classes break the sandbox: " + String.join("; ", shown) + more)
                    .with("violations", messages);
        }
        verified.add(digest);
        if (verified.size() > VERIFIED_CACHE) {
            verified.remove(verified.iterator().next());
        }
        return digest;
    }

    /**
     * The heap copy of a request's columns ({@link ColumnCache}), or null to read the mapped
     * files. A batch (a sweep's vectors) copies them when the cache has room; a single run only
     * takes a copy already held, since copying costs about as much as one pass over the data.
     */
    private Object[] heldColumns(ColumnSet columns, boolean copy) {
        if (columnCache == null) {
            return null;
        }
        return copy ? columnCache.arrays(columns) : columnCache.held(columns);
    }

    /** Bytes, hits, misses and series computed into a dropped one, of the series cache ({@code ping}). */
    Map<String, Object> seriesCacheStatus() {
        if (seriesCache == null) {
            return null;
        }
        long[] counts = seriesCache.counts();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("bytes", seriesCache.bytes());
        s.put("hits", counts[0]);
        s.put("misses", counts[1]);
        s.put("reused", counts[2]);
        return s;
    }

    /** Hits and copies of the column cache ({@code ping}), or null without one. */
    Map<String, Object> columnCacheStatus() {
        if (columnCache == null) {
            return null;
        }
        long[] counts = columnCache.counts();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("bytes", columnCache.bytes());
        s.put("hits", counts[0]);
        s.put("copies", counts[1]);
        return s;
    }

    /**
     * The series view of a request's runs: the data's columns by event-frame field, scoped to
     * these classes, this data and these rows. Null without a cache or for data that is not a
     * request's.
     */
    private RunSeries seriesFor(String digest, ColumnSet columns, int[] range, Instrument instrument) {
        if (seriesCache == null || columns.identity == null) {
            return null;
        }
        return seriesOf(seriesCache, digest + '|' + columns.identity, columns, range, instrument);
    }

    /** The series view of runs over {@code range} of {@code columns}, shared under {@code scope}. */
    static RunSeries seriesOf(SeriesCache cache, String scope, ColumnSet columns, int[] range,
            Instrument instrument) {
        RunSeries s = new RunSeries(cache, scope, instrument, range[0], range[1] - range[0]);
        switch (columns.kind) {
            case "kline" -> s.field(EventFrame.PRIMARY, columns.doubles("close"))
                    .field(TickerValueSource.Close.ordinal(), columns.doubles("close"))
                    .field(TickerValueSource.Open.ordinal(), columns.doubles("open"))
                    .field(TickerValueSource.High.ordinal(), columns.doubles("high"))
                    .field(TickerValueSource.Low.ordinal(), columns.doubles("low"))
                    .field(TickerValueSource.Volume.ordinal(), columns.doubles("volume"));
            case "ticker" -> s.field(EventFrame.PRIMARY, columns.doubles("last"))
                    .field(TickerValueSource.Close.ordinal(), columns.doubles("last"))
                    .field(TickerValueSource.Bid.ordinal(), columns.doubles("bid"))
                    .field(TickerValueSource.BidSize.ordinal(), columns.doubles("bidSize"))
                    .field(TickerValueSource.Ask.ordinal(), columns.doubles("ask"))
                    .field(TickerValueSource.AskSize.ordinal(), columns.doubles("askSize"))
                    .field(TickerValueSource.Volume.ordinal(), columns.doubles("volume"));
            case "funding" -> s.field(EventFrame.PRIMARY, columns.doubles("rate"))
                    .field(TickerValueSource.Rate.ordinal(), columns.doubles("rate"))
                    .field(TickerValueSource.Close.ordinal(), columns.doubles("markPrice"));
            default -> {
                return null;
            }
        }
        return s;
    }

    private static String digest(Map<String, byte[]> classes) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Map.Entry<String, byte[]> e : classes.entrySet()) {
                sha.update(e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(ByteBuffer.allocate(4).putInt(e.getValue().length).array());
                sha.update(e.getValue());
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
