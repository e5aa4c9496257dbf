package com.wualabs.backtestd.host;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.ToolProvider;

/**
 * Plain-Java checks of the host's sandbox internals (no JUnit in this project).
 *
 * <p>The Python integration tests drive the host through its protocol, where the verifier always
 * runs first; these checks exercise the second line of defence on its own: classes that reference
 * forbidden types are loaded through {@link SandboxClassLoader} without verification and must
 * still fail to link. Run: compile with the engine jar on the class path, then
 * {@code java -cp <jar>:<out> com.wualabs.backtestd.host.HostChecks}. Prints "N passed, M failed".
 */
public final class HostChecks {
    private static int passed;
    private static final List<String> FAILURES = new ArrayList<>();

    private HostChecks() {}

    public static void main(String[] args) throws Exception {
        jsonRoundTrip();
        policyVerdicts();
        loaderRefusesForbiddenTypesWithoutVerifier();
        verifierFlagsWhatLoaderRefuses();
        tripwireCatchesWhatSlipsPastTheVerifier();
        errorCountersSeeSwallowedErrors();
        engineClassesAreInitialisedAtStart();
        for (String f : FAILURES) {
            System.err.println("FAILED: " + f);
        }
        System.out.println(passed + " passed, " + FAILURES.size() + " failed");
        System.exit(FAILURES.isEmpty() ? 0 : 1);
    }

    private static void check(String name, boolean ok) {
        if (ok) {
            passed++;
        } else {
            FAILURES.add(name);
        }
    }

    private static void jsonRoundTrip() {
        String text = "{\"a\":[1,2.5,\"x\\n\\u00e9\"],\"b\":null,\"c\":true,"
                + "\"d\":NaN,\"e\":-Infinity}";
        Object parsed = Json.parse(text);
        check("json round trip", Json.write(parsed).equals(
                "{\"a\":[1,2.5,\"x\\n\u00e9\"],\"b\":null,\"c\":true,\"d\":NaN,\"e\":-Infinity}"));
        check("json big integer becomes double",
                Json.parse("12345678901234567890") instanceof Double);
        boolean rejected;
        try {
            Json.parse("{\"a\":1} trailing");
            rejected = false;
        } catch (IllegalArgumentException e) {
            rejected = true;
        }
        check("json trailing garbage rejected", rejected);
        // Strings read whole up to their quote, or from their first escape on, and written whole
        // unless a character needs escaping: the same text either way.
        check("json escape after a plain run", "abc\"d\\e/f\u0001".equals(
                Json.parse("\"abc\\\"d\\\\e\\/f\\u0001\"")));
        check("json escape first", "\nxy".equals(Json.parse("\"\\nxy\"")));
        check("json empty string", "".equals(Json.parse("\"\"")));
        check("json keys and values, no escapes", Json.parse("{\"k\":\"v\",\"l\":[\"w\"]}")
                .equals(java.util.Map.of("k", "v", "l", java.util.List.of("w"))));
        for (String cut : new String[] {"\"abc", "\"ab\\\"c", "\"ab\\"}) {
            try {
                Json.parse(cut);
                rejected = false;
            } catch (IllegalArgumentException e) {
                rejected = e.getMessage().contains("unexpected end of input");
            }
            check("json unterminated string rejected: " + cut, rejected);
        }
        check("json plain string written whole", "\"ab-c_1=\"".equals(Json.write("ab-c_1=")));
        check("json escapes written after a plain run",
                "\"ab\\\"c\\\\d\\n\\u0001\\ud800e\ud83d\ude00\"".equals(
                        Json.write("ab\"c\\d\n\u0001\ud800e\ud83d\ude00")));
    }

    private static void policyVerdicts() {
        check("String allowed", SandboxPolicy.classVerdict("java/lang/String") == null);
        check("ThreadLocal allowed", SandboxPolicy.classVerdict("java/lang/ThreadLocal") == null);
        check("engine allowed", SandboxPolicy.classVerdict(
                "com/wualabs/qtsurfer/engine/core/Ticker") == null);
        check("atomic allowed", SandboxPolicy.classVerdict(
                "java/util/concurrent/atomic/AtomicLong") == null);
        check("System refused", SandboxPolicy.classVerdict("java/lang/System") != null);
        check("System$Logger refused",
                SandboxPolicy.classVerdict("java/lang/System$Logger") != null);
        check("Thread refused", SandboxPolicy.classVerdict("java/lang/Thread") != null);
        check("array of File refused", SandboxPolicy.classVerdict("[[Ljava/io/File;") != null);
        check("primitive array allowed", SandboxPolicy.classVerdict("[I") == null);
        check("command API allowed", SandboxPolicy.classVerdict(
                "com/wualabs/qtsurfer/engine/strategy/CommandRequestHandler") == null
                && SandboxPolicy.classVerdict(
                        "com/wualabs/qtsurfer/engine/strategy/CommandRequest") == null);
        check("host package refused", SandboxPolicy.classVerdict(
                "com/wualabs/backtestd/host/HostMain") != null);
        check("Class.forName refused",
                SandboxPolicy.memberVerdict("java/lang/Class", "forName", "(Ljava/lang/String;)V")
                        != null);
        check("Class.getSimpleName allowed", SandboxPolicy.memberVerdict("java/lang/Class",
                "getSimpleName", "()Ljava/lang/String;") == null);
        check("loader links lambda bootstrap",
                SandboxClassLoader.allowed("java.lang.invoke.LambdaMetafactory"));
        check("loader refuses MethodHandles", !SandboxClassLoader.allowed(
                "java.lang.invoke.MethodHandles"));
    }

    private static final String EVIL = """
            package evil;
            public class Probe implements java.util.function.Supplier<String> {
                public String get() {
                    return System.getProperty("user.home");
                }
            }
            """;

    private static final String BY_NAME = """
            package evil;
            public class ByName implements java.util.function.Supplier<String> {
                public String get() {
                    try {
                        return Class.forName("java.lang.Runtime").getName();
                    } catch (ClassNotFoundException e) {
                        return "refused: " + e.getMessage();
                    }
                }
            }
            """;

    @SuppressWarnings("unchecked")
    private static void loaderRefusesForbiddenTypesWithoutVerifier() throws Exception {
        Map<String, byte[]> classes = compile("Probe", EVIL);
        classes.putAll(compile("ByName", BY_NAME));
        SandboxClassLoader loader = new SandboxClassLoader(classes,
                HostChecks.class.getClassLoader());
        Supplier<String> probe = (Supplier<String>) loader.loadClass("evil.Probe")
                .getDeclaredConstructor().newInstance();
        String outcome;
        try {
            outcome = probe.get();
        } catch (NoClassDefFoundError e) {
            outcome = "refused: " + e.getMessage();
        }
        check("loader refuses java.lang.System at link time (" + outcome + ")",
                outcome.startsWith("refused") && outcome.contains("java/lang/System"));
        Supplier<String> byName = (Supplier<String>) loader.loadClass("evil.ByName")
                .getDeclaredConstructor().newInstance();
        String named = byName.get();
        check("Class.forName from user code goes through the sandbox (" + named + ")",
                named.startsWith("refused") && named.contains("could not be found"));
        check("no resources", loader.getResource("java/lang/Object.class") == null
                && loader.getResourceAsStream("META-INF/MANIFEST.MF") == null);
    }

    private static void verifierFlagsWhatLoaderRefuses() throws Exception {
        List<BytecodeVerifier.Violation> v = BytecodeVerifier.verify(compile("Probe", EVIL),
                (c, m) -> -1);
        check("verifier flags System",
                v.stream().anyMatch(x -> x.target().equals("java.lang.System")));
        check("verifier reports a line", v.stream().anyMatch(x -> x.line() == 4));
    }

    /** A class that starts pool threads through a parallel stream (the verifier refuses it). */
    private static final String POOL = """
            package evil;
            public class Pool implements java.util.function.Supplier<String> {
                public String get() {
                    long n = java.util.stream.LongStream.range(0, 2_000_000).parallel()
                            .map(x -> x * x % 7).sum();
                    return "sum " + n;
                }
            }
            """;

    @SuppressWarnings("unchecked")
    private static void tripwireCatchesWhatSlipsPastTheVerifier() throws Exception {
        Tripwire quiet = Tripwire.arm();
        check("tripwire stays quiet when nothing happened", quiet.check("request") == null);

        Map<String, byte[]> classes = compile("Pool", POOL);
        check("verifier refuses the parallel stream", !BytecodeVerifier.verify(classes,
                (c, m) -> -1).isEmpty());
        SandboxClassLoader loader = new SandboxClassLoader(classes,
                HostChecks.class.getClassLoader());
        Supplier<String> pool = (Supplier<String>) loader.loadClass("evil.Pool")
                .getDeclaredConstructor().newInstance();
        Tripwire wire = Tripwire.arm();
        Guard.Outcome<String> outcome = Guard.call("check", pool::get,
                t -> new HostException(HostException.USER_EXCEPTION, String.valueOf(t)),
                new Guard.Limits(10_000_000_000L, 20_000_000_000L, 1 << 20));
        HostException tripped = wire.check("strategy run");
        check("the unverified class ran (" + outcome.value() + ")",
                outcome.error() == null && outcome.value().startsWith("sum"));
        check("tripwire reports the pool threads (" + tripped + ")", tripped != null
                && tripped.fatal() && tripped.getMessage().contains("ForkJoinPool")
                && tripped.kind().equals(HostException.SANDBOX_VIOLATION));

        Locale before = Locale.getDefault();
        Tripwire locale = Tripwire.arm();
        Locale.setDefault(Locale.GERMANY.equals(before) ? Locale.FRANCE : Locale.GERMANY);
        HostException changed = locale.check("strategy run");
        Locale.setDefault(before);
        check("tripwire reports a changed default locale", changed != null
                && changed.getMessage().contains("default locale"));
    }

    private static int depth(int n) {
        return depth(n + 1) + 1;
    }

    private static void errorCountersSeeSwallowedErrors() throws Exception {
        ErrorCounters.Snapshot parsed = ErrorCounters.parse("x\nOutOfMemoryError java_heap_errors=2\n"
                + "OutOfMemoryError metaspace_errors=1\nStackOverflowErrors=7\nLinkageErrors=3\n");
        check("error counts parse (" + parsed + ")",
                parsed.stackOverflows() == 7 && parsed.outOfMemory() == 3);
        check("zero counts are absent from VM.info",
                ErrorCounters.parse("nothing here\n").equals(new ErrorCounters.Snapshot(0, 0)));

        ErrorCounters counters = ErrorCounters.open(); // proves a counted overflow itself
        ErrorCounters.Snapshot before = counters.read();
        check("no change, no damage", counters.read().grownSince(before) == null);
        try {
            depth(0);
        } catch (StackOverflowError swallowed) {
            // what a strategy could do in a catch, a finally or a CompletableFuture
        }
        String grown = counters.read().grownSince(before);
        check("a swallowed StackOverflowError is counted (" + grown + ")",
                grown != null && grown.contains("1 StackOverflowError"));
        before = counters.read();
        try {
            long[] hoard = new long[Integer.MAX_VALUE - 16]; // 16 GiB, above any test heap
            check("the hoard fits?", hoard.length == 0);
        } catch (OutOfMemoryError swallowed) {
            // the hoard is garbage again
        }
        grown = counters.read().grownSince(before);
        check("a swallowed OutOfMemoryError is counted (" + grown + ")",
                grown != null && grown.contains("OutOfMemoryError"));
    }

    private static void engineClassesAreInitialisedAtStart() throws Exception {
        int n = HostMain.initialiseEngineClasses();
        check("engine classes initialised at start (" + n + ")", n > 50);
    }

    private static Map<String, byte[]> compile(String name, String source) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        MemoryFileManager files = new MemoryFileManager(
                javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8));
        boolean ok = javac.getTask(null, files, diagnostics, List.of("-g"), null,
                List.of(new MemoryFileManager.Source(name, source))).call();
        if (!ok) {
            throw new IllegalStateException(diagnostics.getDiagnostics().toString());
        }
        return files.classFiles();
    }
}
