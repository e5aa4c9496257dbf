"""Every sandbox escape is refused at compile time or contained at run time (real JVM)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from tests.support.services import requires_java

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    HostConfig,
    RunFailure,
    RunFailureKind,
    RunRequest,
    locate_engine_jar,
    write_columns,
)

pytestmark = requires_java

TEMPLATE = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import java.util.*;

public class Escape extends AbstractTickerStrategy {
    private long counter;
    private final List<long[]> hoard = new ArrayList<>();
%(members)s
    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        try {
%(body)s
        } catch (Exception e) {
            counter--;
        }
    }
}
"""


def _source(body: str, members: str = "") -> str:
    return TEMPLATE % {"body": body, "members": members}


def _line_of(source: str, needle: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if needle in line)


def _jar() -> Path:
    return locate_engine_jar()


@pytest.fixture(scope="module")
def host() -> Iterator[EngineHost]:
    with EngineHost(HostConfig(jar=_jar(), heap_mb=192)) as engine:
        yield engine


@pytest.fixture(scope="module")
def column_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    n = 2_000
    last = np.linspace(100.0, 110.0, n)
    columns = {
        "ts": 1_700_000_000_000 + np.arange(n, dtype=np.int64) * 1000,
        "bid": last,
        "bidSize": np.ones(n),
        "ask": last,
        "askSize": np.ones(n),
        "last": last,
        "volume": np.ones(n),
    }
    return write_columns(tmp_path_factory.mktemp("sandbox"), DataType.TICKER, columns)


def _run(
    host: EngineHost, compiled: CompileResult, files: dict[str, Path], **limits: float
) -> None:
    assert compiled.ok, [d.render() for d in compiled.diagnostics]
    assert compiled.main_class is not None
    host.run(
        RunRequest(
            class_files=compiled.class_files,
            main_class=compiled.main_class,
            kind=DataType.TICKER,
            columns=files,
            instrument=Instrument("BTC", "USDT"),
            **limits,
        )
    )


ESCAPES = [
    ("file", '            counter += new java.io.File("/etc/passwd").length();', "java.io.File"),
    (
        "file stream",
        '            counter += new java.io.FileInputStream("/etc/passwd").read();',
        "java.io.FileInputStream",
    ),
    (
        "nio files",
        "            counter += java.nio.file.Files"
        '.readString(java.nio.file.Path.of("/etc/passwd")).length();',
        "java.nio.file.Files",
    ),
    (
        "socket",
        '            new java.net.Socket("127.0.0.1", 9).close();',
        "java.net.Socket",
    ),
    ("runtime exec", '            Runtime.getRuntime().exec("id");', "java.lang.Runtime"),
    (
        "process builder",
        '            new ProcessBuilder("id").start();',
        "java.lang.ProcessBuilder",
    ),
    ("thread", "            new Thread(() -> counter++).start();", "java.lang.Thread"),
    (
        "reflection",
        '            getClass().getDeclaredMethod("update", Ticker.class).setAccessible(true);',
        "java.lang.Class.getDeclaredMethod",
    ),
    (
        "reflection type",
        "            counter += java.lang.reflect.Array.getLength(new int[3]);",
        "java.lang.reflect.Array",
    ),
    ("system exit", "            System.exit(0);", "java.lang.System"),
    (
        "exit by method reference",
        "            java.util.function.IntConsumer c = System::exit;",
        "java.lang.System",
    ),
    (
        "class for name",
        '            Class.forName("java.lang.Runtime");',
        "java.lang.Class.forName",
    ),
    (
        "executor",
        "            java.util.concurrent.Executors.newSingleThreadExecutor();",
        "java.util.concurrent.Executors",
    ),
    (
        "parallel stream",
        "            counter += List.of(1, 2).parallelStream().count();",
        "parallelStream",
    ),
    ("object wait", "            synchronized (this) { wait(10); }", "wait"),
    # Waits only another thread could end: each parked a worker, idle, until the wall limit.
    (
        "lock support park",
        "            java.util.concurrent.locks.LockSupport.parkNanos(120_000_000_000L);",
        "java.util.concurrent.locks",
    ),
    (
        "latch await",
        "            new java.util.concurrent.CountDownLatch(1).await();",
        "java.util.concurrent.CountDownLatch.await",
    ),
    (
        "future get",
        "            new java.util.concurrent.CompletableFuture<Integer>().get();",
        "java.util.concurrent.CompletableFuture.get",
    ),
    (
        "queue take",
        "            new java.util.concurrent.LinkedBlockingQueue<Integer>().take();",
        "java.util.concurrent.LinkedBlockingQueue.take",
    ),
    (
        "timed poll",
        "            new java.util.concurrent.ArrayBlockingQueue<Integer>(1)"
        ".poll(100, java.util.concurrent.TimeUnit.SECONDS);",
        "java.util.concurrent.ArrayBlockingQueue.poll",
    ),
    (
        "semaphore",
        "            new java.util.concurrent.Semaphore(0).acquire();",
        "java.util.concurrent.Semaphore.acquire",
    ),
    ("timer", "            new java.util.Timer();", "java.util.Timer"),
    (
        "method handles",
        "            java.lang.invoke.MethodHandles.lookup();",
        "java.lang.invoke.MethodHandles",
    ),
    (
        "engine internals",
        "            com.wualabs.qtsurfer.engine.runtime.StrategyHarness.requiredSources"
        "(Escape.class);",
        "com.wualabs.qtsurfer.engine.runtime",
    ),
    (
        "formatter file",
        '            new java.util.Formatter("/tmp/escape.txt").close();',
        "java.util.Formatter",
    ),
]


def _assert_blocked(
    host: EngineHost,
    result: CompileResult,
    files: dict[str, Path],
    forbidden: str,
    line: int | None = None,
) -> None:
    """Registers (as on the platform, strategy-api §2.2) with the finding as a warning at its
    line, and every run refuses the classes before loading them, naming the class and rule."""
    assert result.ok, [d.render() for d in result.diagnostics]
    assert not result.runnable
    assert result.declared_properties == ()  # the class was never loaded
    sandbox = result.sandbox_warnings
    assert any(forbidden in d.message and "demo.Escape" in d.message for d in sandbox), [
        d.render() for d in result.diagnostics
    ]
    if line is not None:
        assert any(d.line == line for d in sandbox)
    with pytest.raises(RunFailure) as caught:
        _run(host, result, files)
    assert caught.value.kind is RunFailureKind.SANDBOX_VIOLATION
    assert forbidden in caught.value.message
    assert "demo.Escape" in caught.value.message


@pytest.mark.parametrize(
    ("body", "forbidden"), [(b, f) for _, b, f in ESCAPES], ids=[e[0] for e in ESCAPES]
)
def test_escape_registers_with_a_warning_and_every_run_refuses_it(
    host: EngineHost, column_files: dict[str, Path], body: str, forbidden: str
) -> None:
    source = _source(body)

    result = host.compile(source)

    _assert_blocked(host, result, column_files, forbidden, _line_of(source, body.strip()))


def test_forbidden_field_type_is_reported_at_its_declaration(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    source = _source("            counter++;", members="    private java.io.File target;\n")

    result = host.compile(source)

    _assert_blocked(
        host, result, column_files, "java.io.File", _line_of(source, "java.io.File target")
    )


def test_finalizer_is_refused(host: EngineHost, column_files: dict[str, Path]) -> None:
    source = _source(
        "            counter++;", members="    @Override\n    protected void finalize() {}\n"
    )

    result = host.compile(source)

    _assert_blocked(host, result, column_files, "finalize")


def test_allowed_library_use_compiles_and_runs(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    """The allowlisted packages work inside the sandbox: the first tick computes a value with
    each of them and emits it as a signal price, which must be the value Java gives."""
    members = "    private boolean done;\n"
    body = (
        "            if (done) { return; }\n"
        "            done = true;\n"
        "            Map<String, Double> m = new HashMap<>();\n"
        '            m.merge("k", ticker.last(), Double::sum);\n'
        '            m.merge("k", 1.0, Double::sum);\n'
        "            double v = m.values().stream().mapToDouble(Double::doubleValue).sum();\n"
        "            v += java.time.Duration.ofSeconds(5).getSeconds();\n"
        '            v += new java.math.BigDecimal("1.5").add(java.math.BigDecimal.ONE)'
        ".doubleValue();\n"
        '            v += new java.text.DecimalFormat("0.00").format(1.0).length();\n'
        "            v += java.util.concurrent.atomic.AtomicLong.class.getSimpleName().length();\n"
        "            java.util.concurrent.ConcurrentHashMap<String, Integer> c =\n"
        "                new java.util.concurrent.ConcurrentHashMap<>();\n"
        '            c.put("x", 3);\n'
        '            v += c.get("x") + java.util.concurrent.TimeUnit.MINUTES.toSeconds(1)\n'
        "                + java.util.concurrent.TimeUnit.SECONDS.convert(\n"
        "                    2, java.util.concurrent.TimeUnit.MINUTES);\n"
        "            record Pair(int a, int b) {}\n"
        "            v += new Pair(1, 2).b();\n"
        "            emitBuy(ticker.instrument(), v);"
    )

    compiled = host.compile(_source(body, members))

    assert compiled.ok, [d.render() for d in compiled.diagnostics]
    assert compiled.runnable
    assert compiled.main_class is not None
    result = host.run(
        RunRequest(
            class_files=compiled.class_files,
            main_class=compiled.main_class,
            kind=DataType.TICKER,
            columns=column_files,
            instrument=Instrument("BTC", "USDT"),
        )
    )
    # first last price 100.0, + 1 + 5 s + 2.5 + "1.00" (4) + "AtomicLong" (10)
    # + 3 + 60 + 120 (a concurrent map and TimeUnit arithmetic, which do not wait) + 2
    assert result.signal_price.tolist() == [100.0 + 1 + 5 + 2.5 + 4 + 10 + 3 + 60 + 120 + 2]
    assert result.events == 2_000


def test_tampered_class_file_is_refused_at_run_time(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    compiled = host.compile(_source("            counter += String.valueOf(1).length();"))
    assert compiled.ok
    assert compiled.main_class is not None
    main = compiled.main_class
    tampered = dict(compiled.class_files)
    tampered[main] = tampered[main].replace(b"java/lang/String", b"java/lang/System")

    with pytest.raises(RunFailure) as caught:
        _run(host, CompileResult(True, (), tampered, main), column_files)

    assert caught.value.kind is RunFailureKind.SANDBOX_VIOLATION
    assert "java.lang.System" in caught.value.message


# -- contained at run time ---------------------------------------------------------------------


def test_infinite_loop_hits_cpu_limit_and_host_is_replaced(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    spin = host.compile(_source("            while (ticker.last() > 0) { counter++; }"))
    pid = host.pid

    with pytest.raises(RunFailure) as caught:
        _run(host, spin, column_files, cpu_limit_s=1.0)

    assert caught.value.kind is RunFailureKind.LIMIT_EXCEEDED
    assert "CPU-time limit" in caught.value.message
    healthy = host.compile(_source("            counter++;"))
    _run(host, healthy, column_files)
    assert host.pid not in (None, pid)


def test_memory_bomb_is_out_of_memory_and_host_is_replaced(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    bomb = host.compile(_source("            while (true) { hoard.add(new long[1 << 20]); }"))
    pid = host.pid

    with pytest.raises(RunFailure) as caught:
        _run(host, bomb, column_files)

    assert caught.value.kind is RunFailureKind.OUT_OF_MEMORY
    healthy = host.compile(_source("            counter++;"))
    _run(host, healthy, column_files)
    assert host.pid not in (None, pid)


def test_deep_recursion_is_stack_overflow_and_the_next_run_gets_a_fresh_host(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    members = (
        "    private long down(long n) {\n        return n == 0 ? 0 : 1 + down(n + 1);\n    }\n"
    )
    deep = host.compile(_source("            counter += down(1);", members=members))
    healthy = host.compile(_source("            counter++;"))
    pid = host.pid

    with pytest.raises(RunFailure) as caught:
        _run(host, deep, column_files)

    assert caught.value.kind is RunFailureKind.STACK_OVERFLOW
    assert caught.value.frames
    assert caught.value.frames[0].method == "down"
    # A stack overflow can leave classes half-initialised for good: the host is replaced.
    _run(host, healthy, column_files)
    assert host.pid != pid


INHERITED_ESCAPES = [
    (
        "parallel stream through a user subclass",
        "    static class L extends ArrayList<Integer> {}\n",
        "            counter += new L().parallelStream().count();",
        "parallelStream",
    ),
    (
        "async task through a user subclass",
        "    static class CF extends java.util.concurrent.CompletableFuture<Void> {}\n",
        "            CF.runAsync(() -> { });",
        "runAsync",
    ),
    (
        "parallel StreamSupport without a subclass",
        "",
        "            counter += java.util.stream.StreamSupport"
        ".stream(List.of(1, 2).spliterator(), true).count();",
        "StreamSupport",
    ),
    (
        "default locale",
        "",
        "            Locale.setDefault(Locale.GERMANY);",
        "setDefault",
    ),
    (
        "default time zone",
        "",
        '            TimeZone.setDefault(TimeZone.getTimeZone("Asia/Tokyo"));',
        "setDefault",
    ),
    (
        "default time zone through a user subclass",
        "    abstract static class Z extends TimeZone {}\n",
        "            Z.setDefault(null);",
        "setDefault",
    ),
]


@pytest.mark.parametrize(
    ("members", "body", "forbidden"),
    [(m, b, f) for _, m, b, f in INHERITED_ESCAPES],
    ids=[e[0] for e in INHERITED_ESCAPES],
)
def test_calls_are_judged_against_the_class_that_declares_them(
    host: EngineHost, column_files: dict[str, Path], members: str, body: str, forbidden: str
) -> None:
    """A banned JDK method reached through a user subclass, or a JVM-wide default setter, is
    found at registration and refused before loading by every run, so it never runs and cannot
    touch the next user's run."""
    source = TEMPLATE % {"members": members, "body": body}

    result = host.compile(source)

    _assert_blocked(host, result, column_files, forbidden)


POISON = """\
    private boolean touched;

    private long dive(long n) {
        try {
            return dive(n + 1) + 1;
        } catch (StackOverflowError e) {
            if (!touched) {
                touched = true;
                counter += com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode
                        .values().length;
            }
            return 0;
        }
    }
"""


def test_an_engine_class_touched_on_a_full_stack_stays_usable_for_the_next_tenant(
    column_files: dict[str, Path],
) -> None:
    """Attacker: touch an engine enum with the stack nearly full (its initialiser would die of
    StackOverflowError and the JVM would refuse the class for good). Victim, right after on the
    same host: a strategy that uses that enum runs normally."""
    victim_source = _source(
        "            counter += getExecutionMode().ordinal();",
    )
    with EngineHost(HostConfig(jar=_jar(), heap_mb=128)) as fresh:
        attacker = fresh.compile(
            _source("            if (!touched) { counter += dive(1); }", members=POISON)
        )
        victim = fresh.compile(victim_source)
        _run(fresh, attacker, column_files)  # it catches its own overflow and finishes
        _run(fresh, victim, column_files)
        _run(fresh, victim, column_files)
