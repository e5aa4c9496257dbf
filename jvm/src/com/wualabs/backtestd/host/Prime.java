package com.wualabs.backtestd.host;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Primes a fresh engine host: before it serves its parent, one small request of each kind a
 * worker sends (a sweep's {@code run_batch} over klines, an execute's {@code run} over tickers),
 * with strategies of the common shape, over a few made-up rows, through the same path a request
 * takes (its frame read and parsed, the class files checked and loaded in a sandbox, the columns
 * mapped, series, feed loop, signals collected, the answer encoded and thrown away).
 *
 * <p>Why: a fresh host's first request loaded, linked and spun (lambda forms, record methods,
 * string concatenations) about 300 classes of the request path, 0.2 s of its first batch, and the
 * JIT compiled the JDK's bytecode spinner on the way; a first sweep on a fresh service paid that
 * in each of its hosts while the user waited (docs/engine-host.md, "Priming"). A host starts when
 * its worker joins, long before a sweep, so it pays it there.
 *
 * <p>The rows are few on purpose: nothing here runs often enough for the JIT to profile or compile
 * it, so the user's own runs shape the compiled code as they would without priming (the JIT
 * warm-up, which ran the engine's loops hot with its own strategies, made later sweeps slower:
 * docs/benchmarks.md). The strategies are the engine's (jvm/prime, built into the jar as resources
 * that no class loader finds by name) and run under the same sandbox and limits as a user's, in a
 * {@link RunService} of their own.
 */
final class Prime {
    /** Rows of each made-up column set: one-second klines or ticks. */
    static final int ROWS = 64;

    private static final String RESOURCES = "prime/";
    private static final long START_MS = 1_700_000_000_000L;

    private Prime() {
    }

    /** Bytes of each cache of the priming's own {@link RunService}: enough for its rows. */
    private static final long CACHE_BYTES = 1L << 20;

    /**
     * Runs both requests; returns the milliseconds it took. They go to a {@link RunService} of
     * their own, dropped afterwards: the host's caches and kept loaders hold nothing of them, so
     * the first user request finds them as a host without priming would. A request that fails
     * is reported on stderr and skipped: a host that cannot prime still serves, and its first
     * request pays.
     */
    static long run(Guard.Limits limits) {
        long started = System.nanoTime();
        RunService runner = new RunService(CACHE_BYTES, CACHE_BYTES);
        Path dir = null;
        try {
            Map<String, String> classFiles = classFiles();
            dir = Files.createTempDirectory("backtestd-prime");
            Map<String, Object> batch = request("run_batch", "kline", "PrimeKlines", classFiles, dir);
            batch.put("vectors", List.of(Map.of("fast", "2", "slow", "5"), Map.of("fast", "3", "slow", "4")));
            RunService.Answer klines = runner.runBatch(parsed(batch), limits, () -> null);
            encode(klines);
            Map<String, Object> one = request("run", "ticker", "PrimeTickers", classFiles, dir);
            one.put("params", Map.of("fast", "2", "slow", "5"));
            encode(runner.run(parsed(one), limits));
        } catch (HostException | IOException | RuntimeException e) {
            System.err.println("engine host: priming failed, the first request pays for it: " + e);
        } finally {
            delete(dir);
        }
        return (System.nanoTime() - started) / 1_000_000L;
    }

    /** The priming strategies' class files, base64 by file name, as a request carries them. */
    private static Map<String, String> classFiles() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        for (String name : new String(resource("classes.txt"), StandardCharsets.UTF_8).split("\n")) {
            if (!name.isBlank()) {
                files.put(name.strip(), Base64.getEncoder().encodeToString(resource(name.strip() + ".bin")));
            }
        }
        return files;
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = Prime.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IOException("no resource " + RESOURCES + name + " in the engine jar");
            }
            return in.readAllBytes();
        }
    }

    /** A request of {@code op} for {@code kind} rows written under {@code dir}, for {@code main}'s classes. */
    private static Map<String, Object> request(String op, String kind, String main,
            Map<String, String> classFiles, Path dir) throws IOException {
        Map<String, Object> own = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : classFiles.entrySet()) {
            if (e.getKey().startsWith(main)) {
                own.put(e.getKey(), e.getValue());
            }
        }
        Map<String, Object> columns = new LinkedHashMap<>();
        for (String column : ColumnSet.LAYOUTS.get(kind)) {
            Path file = dir.resolve(kind + "-" + column);
            Files.write(file, column(column));
            columns.put(column, file.toString());
        }
        Map<String, Object> req = new LinkedHashMap<>();
        req.put("op", op);
        req.put("id", 0);
        req.put("class_files", own);
        req.put("main_class", main);
        req.put("instrument", Map.of("base", "PRIME", "quote", "USDT"));
        req.put("kind", kind);
        req.put("columns", columns);
        return req;
    }

    /** One column's little-endian bytes: seconds for times, a price that crosses its averages. */
    private static byte[] column(String name) {
        ByteBuffer b = ByteBuffer.allocate(ROWS * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < ROWS; i++) {
            long t = START_MS + i * 1_000L;
            double price = 100.0 + 5.0 * Math.sin(i / 3.0);
            switch (name) {
                case "ts" -> b.putLong(t);
                case "closeTs" -> b.putLong(t + 999);
                case "volume", "bidSize", "askSize" -> b.putDouble(1.0 + i % 3);
                case "bid" -> b.putDouble(price - 0.01);
                case "ask" -> b.putDouble(price + 0.01);
                default -> b.putDouble(price);
            }
        }
        return b.array();
    }

    /** {@code req} as the host reads it from its parent: written as a frame and parsed back. */
    private static Map<String, Object> parsed(Map<String, Object> req) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        Frames.write(out, req, List.of());
        out.flush();
        return Frames.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()))).header();
    }

    /** Encodes an answer as the host sends one, into nothing. */
    private static void encode(RunService.Answer a) throws IOException {
        DataOutputStream sink = new DataOutputStream(OutputStream.nullOutputStream());
        Frames.write(sink, new LinkedHashMap<>(a.header()), new ArrayList<>(a.payloads()));
        sink.flush();
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException | RuntimeException e) {
            System.err.println("engine host: could not remove " + dir + ": " + e);
        }
    }
}
