"""Tenant isolation on one engine host (issue 9): attacker first, victim right after.

Every test here shares one real JVM between a hostile strategy and an ordinary one, the way two
users share an engine host in the service. The invariant: whatever the attacker does fails its
own request only, within seconds, and the victim's next compile and run on the same
``EngineHost`` succeed with the same signals as on a fresh JVM.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.attacks import BOMB_HELPER, bomb_expression
from tests.support.services import requires_java
from tests.support.tenants import (
    CURRENCY_USER,
    NUMBER_PARSER,
    TEMPLATE,
    VICTIM,
    run_compiled,
    same_signals,
    ticker_columns,
    ticker_request,
)

from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    HostConfig,
    RunFailure,
    RunFailureKind,
    RunResult,
    locate_engine_jar,
)

pytestmark = requires_java

ENDLESS_EXCEPTION = """\
    static final class Endless extends RuntimeException {
        @Override
        public String getMessage() {
            while (true) {
            }
        }
    }
"""

HOST_CPU_S = 20.0
"""A run's own CPU limit, far above the few seconds an attack may now hold the host."""


def _attack(name: str, body: str, members: str = "") -> str:
    return TEMPLATE % {"name": name, "members": members, "body": body}


def _bomb(depth: int) -> str:
    return _attack("Bomb", f"        Object o = {bomb_expression(depth)};", BOMB_HELPER)


@pytest.fixture(scope="module")
def column_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return ticker_columns(tmp_path_factory.mktemp("isolation"))


@pytest.fixture
def host() -> Iterator[EngineHost]:
    config = HostConfig(
        jar=locate_engine_jar(), heap_mb=256, compile_cpu_limit_s=2.0, run_cpu_limit_s=HOST_CPU_S
    )
    with EngineHost(config) as engine:
        yield engine


@pytest.fixture(scope="module")
def reference(column_files: dict[str, Path]) -> RunResult:
    """The victim's run on a JVM no attacker ever touched."""
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256)) as fresh:
        return _run(fresh, fresh.compile(VICTIM), column_files)


def _run(host: EngineHost, compiled: CompileResult, files: dict[str, Path]) -> RunResult:
    return run_compiled(host, compiled, files)


def _victim_is_unharmed(
    host: EngineHost, files: dict[str, Path], reference: RunResult, seconds: float = 10.0
) -> None:
    """The victim compiles and runs on the same host right after, promptly and identically."""
    started = time.monotonic()
    result = _run(host, host.compile(VICTIM), files)
    took = time.monotonic() - started
    assert took < seconds, f"the victim waited {took:.1f} s"
    same_signals(result, reference)


def _fails_fast(call: object, kind: RunFailureKind, within_s: float) -> RunFailure:
    assert callable(call)
    started = time.monotonic()
    with pytest.raises(RunFailure) as caught:
        call()
    took = time.monotonic() - started
    assert caught.value.kind is kind, caught.value
    assert took < within_s, f"the attack held the host for {took:.1f} s"
    return caught.value


# -- point 3: no user code outside the guard ----------------------------------------------------


def test_exception_whose_message_never_returns_fails_its_run_in_seconds(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    attacker = host.compile(
        _attack("Liar", "        throw new Endless();", ENDLESS_EXCEPTION),
    )
    pid = host.pid

    failure = _fails_fast(
        lambda: _run(host, attacker, column_files), RunFailureKind.LIMIT_EXCEEDED, 12
    )

    assert "description" in failure.message
    assert "getMessage" in failure.message
    _victim_is_unharmed(host, column_files, reference)
    assert host.pid != pid  # the looping thread died with its JVM


def test_exception_from_a_static_initialiser_at_registration_cannot_hold_the_host(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    members = ENDLESS_EXCEPTION + (
        "    static final int BOOM = explode();\n"
        "    static int explode() {\n"
        "        throw new Endless();\n"
        "    }\n"
        '    @com.wualabs.qtsurfer.engine.strategy.StrategyProperty(name = "n", '
        'description = "n", defaultValue = "1")\n'
        "    private int n = BOOM;\n"
    )
    source = _attack("LiarAtLoad", "        counter += n;", members)

    def register() -> None:
        result = host.compile(source)
        if not result.ok:  # the inspection did not run the initialiser: run it
            raise AssertionError([d.render() for d in result.diagnostics])
        _run(host, result, column_files)

    _fails_fast(register, RunFailureKind.LIMIT_EXCEEDED, 15)
    _victim_is_unharmed(host, column_files, reference)


def test_exception_whose_stack_trace_allocates_forever_fails_its_own_run(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    members = """\
    static final class Hoarder extends RuntimeException {
        @Override
        public StackTraceElement[] getStackTrace() {
            List<long[]> hoard = new ArrayList<>();
            while (true) {
                hoard.add(new long[1 << 20]);
            }
        }
    }
"""
    attacker = host.compile(_attack("Hoard", "        throw new Hoarder();", members))

    _fails_fast(lambda: _run(host, attacker, column_files), RunFailureKind.OUT_OF_MEMORY, 15)

    _victim_is_unharmed(host, column_files, reference)


# -- point 4: compile bombs ---------------------------------------------------------------------


def test_compile_bomb_fails_its_registration_within_the_javac_budget(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    bomb = _bomb(10)
    assert len(bomb) < 32_768  # what POST /strategy accepts

    failure = _fails_fast(lambda: host.compile(bomb), RunFailureKind.LIMIT_EXCEEDED, 15)

    assert "javac" in failure.message
    # On a starved machine javac can reach its wall-clock budget before its CPU budget; either
    # budget stopping it in seconds is the point.
    assert "CPU-time limit of 2.0 s" in failure.message or "wall-clock limit of" in failure.message
    _victim_is_unharmed(host, column_files, reference)


def test_a_source_nested_too_deeply_for_javac_fails_cleanly(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    deep = "        counter += " + "(" * 100_000 + "1" + ")" * 100_000 + ";"

    failure = _fails_fast(
        lambda: host.compile(_attack("Deep", deep)), RunFailureKind.LIMIT_EXCEEDED, 15
    )

    assert "nested too deeply" in failure.message
    _victim_is_unharmed(host, column_files, reference)


# -- point 7: output flooding -------------------------------------------------------------------


def test_info_flood_fails_its_run_with_a_clear_message_and_keeps_the_host(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    members = '    private static final String PAGE = "x".repeat(8_000);\n'
    attacker = host.compile(
        _attack("Flood", '        emitInfo("page", PAGE + counter++);', members)
    )
    pid = host.pid

    failure = _fails_fast(
        lambda: _run(host, attacker, column_files), RunFailureKind.OUTPUT_LIMIT, 20
    )

    assert "8 MiB" in failure.message
    assert "info" in failure.message
    _victim_is_unharmed(host, column_files, reference)
    assert host.pid == pid  # not host-fatal: the answer was never built


def test_signal_flood_is_capped_at_a_million_signals(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    body = "        for (int i = 0; i < 400; i++) { emitBuy(ticker.instrument(), 1.0); }"
    attacker = host.compile(_attack("Spam", body))

    failure = _fails_fast(
        lambda: _run(host, attacker, column_files), RunFailureKind.OUTPUT_LIMIT, 20
    )

    assert "1200000 signals" in failure.message
    assert "at most 1000000" in failure.message
    _victim_is_unharmed(host, column_files, reference)


def test_huge_log_lines_are_clipped_in_the_notices(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    members = '    private static final String BIG = "y".repeat(100_000);\n'
    noisy = host.compile(_attack("Noisy", "        log.info((counter++ % 3) + BIG);", members))

    result = _run(host, noisy, column_files)

    assert len(result.notices) == 3  # three distinct lines, each repeated
    assert all(len(n) < 1_200 for n in result.notices), [len(n) for n in result.notices]
    assert all("more characters" in n for n in result.notices)


# -- point 1: a JDK class poisoned on a full stack (or heap), the error swallowed ---------------

DIVE = """\
    static int dive(int d) {
        try {
            return dive(d + 1) + 1;
        } catch (StackOverflowError e) {
            try {
                java.util.Currency.getInstance("USD"); // its initialiser dies on the full stack
            } catch (Throwable t) {
                counter2++;
            }
            throw e;
        }
    }
    static long counter2;
"""

SWALLOWS = {
    "catch Throwable": ("", "            try { dive(0); } catch (Throwable t) { }"),
    "finally that returns": (
        '    @SuppressWarnings("finally")\n'
        "    static void swallow() { try { dive(0); } finally { return; } }\n",
        "            swallow();",
    ),
    "CompletableFuture": (
        "",
        "            java.util.concurrent.CompletableFuture.completedFuture(0)"
        ".thenApply(x -> dive(x));",
    ),
    "try-with-resources suppressed": (
        "",
        "            try (AutoCloseable r = () -> dive(0)) { throw new IllegalStateException(); }"
        " catch (Exception e) { }",
    ),
}


@pytest.fixture(scope="module")
def currency_reference(column_files: dict[str, Path]) -> RunResult:
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256)) as fresh:
        return _run(fresh, fresh.compile(CURRENCY_USER), column_files)


@pytest.mark.parametrize("swallow", list(SWALLOWS), ids=list(SWALLOWS))
def test_a_jdk_class_killed_on_a_full_stack_is_gone_with_the_attackers_jvm(
    host: EngineHost,
    column_files: dict[str, Path],
    currency_reference: RunResult,
    swallow: str,
) -> None:
    """Attacker: recurse until the stack is full, touch java.util.Currency for the first time
    (its static initialiser dies of StackOverflowError, and the JVM refuses the class for good),
    swallow the error and finish normally. The JVM counted the overflow, so the host answers the
    attacker and restarts; the victim, whose strategy needs Currency, runs as on a fresh JVM
    without any retry."""
    members, call = SWALLOWS[swallow]
    check = (
        '            try { java.util.Currency.getInstance("USD"); log.info("intact"); }\n'
        '            catch (NoClassDefFoundError e) { log.info("poisoned: " + e.getMessage()); }'
    )
    body = f"        if (counter++ == 0) {{\n{call}\n{check}\n        }}"
    attacker = host.compile(_attack("Poisoner", body, DIVE + members))
    victim = host.compile(CURRENCY_USER)
    pid = host.pid

    own = _run(host, attacker, column_files)  # it completes: what it did is its own business

    assert own.notices == ("[INFO] poisoned: Could not initialize class java.util.Currency",)
    assert host.pid is None or host.pid != pid  # the poisoned JVM is gone
    started = time.monotonic()
    result = _run(host, victim, column_files)
    assert time.monotonic() - started < 10
    same_signals(result, currency_reference)
    assert host.retries == 0  # no victim run ever met the poisoned class


_CURRENCY_CHECK = (
    '            try { java.util.Currency.getInstance("USD"); log.info("intact"); }\n'
    '            catch (NoClassDefFoundError e) { log.info("poisoned: " + e.getMessage()); }'
)
_ROLE = (
    '    @com.wualabs.qtsurfer.engine.strategy.StrategyProperty(name = "role", '
    'description = "1 poisons", defaultValue = "0")\n'
    "    private int role = 0;\n"
)


def test_a_vector_that_poisons_a_jdk_class_leaves_the_next_vector_of_its_batch_a_fresh_jvm(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    """Attacker and victims in one batch, as one user's sweep sends them: the first vector
    poisons java.util.Currency on a full stack and swallows the error; the vectors after it,
    which need Currency, run as on a fresh JVM. The host reads the JVM's error counts once
    after a batch: they grew, so it answered none of them (those after the attacker had met
    the poisoned class) and run_many sent them again, checked one by one, which stops after
    the attacker; the rest ran on the next JVM."""
    body = (
        "        if (counter++ == 0) {\n"
        "            if (role == 1) {\n"
        "                try { dive(0); } catch (Throwable t) { }\n"
        "            }\n"
        f"{_CURRENCY_CHECK}\n"
        "        }"
    )
    request = ticker_request(host.compile(_attack("Sweeper", body, DIVE + _ROLE)), column_files)
    pid = host.pid

    outcomes = host.run_many(request, [{"role": 1}, {"role": 0}, {"role": 0}])

    assert [o.notices for o in outcomes if isinstance(o, RunResult)] == [
        ("[INFO] poisoned: Could not initialize class java.util.Currency",),
        ("[INFO] intact",),
        ("[INFO] intact",),
    ]
    assert host.pid is not None
    assert host.pid != pid
    assert host.retries == 0


def test_a_swallowed_out_of_memory_error_restarts_the_host(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    """An initialiser can die of OutOfMemoryError as well: a run that made the JVM throw one,
    even if it caught it, leaves a JVM that is not reused."""
    body = (
        "        if (counter++ == 0) {\n"
        "            try { long[] a = new long[Integer.MAX_VALUE - 16]; counter += a.length; }\n"
        "            catch (OutOfMemoryError e) { }\n"
        "        }"
    )
    attacker = host.compile(_attack("Glutton", body))
    pid = host.pid

    _run(host, attacker, column_files)

    assert host.pid is None or host.pid != pid
    _victim_is_unharmed(host, column_files, reference)


def test_a_run_without_errors_keeps_the_host(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    """The error counts are checked after every request; an ordinary run does not restart."""
    compiled = host.compile(VICTIM)
    pid = host.pid
    for _ in range(3):
        same_signals(_run(host, compiled, column_files), reference)
    assert host.pid == pid


# -- points 5 and 13: global defaults and blocked classes, refused before they run --------------

GLOBAL_SETTERS = {
    "default locale": "            Locale.setDefault(Locale.GERMANY);",
    "default format locale": (
        "            Locale.setDefault(Locale.Category.FORMAT, Locale.GERMANY);"
    ),
    "default time zone": '            TimeZone.setDefault(TimeZone.getTimeZone("Asia/Kolkata"));',
}


@pytest.fixture(scope="module")
def parser_reference(column_files: dict[str, Path]) -> RunResult:
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256)) as fresh:
        return _run(fresh, fresh.compile(NUMBER_PARSER), column_files)


@pytest.mark.parametrize("setter", list(GLOBAL_SETTERS), ids=list(GLOBAL_SETTERS))
def test_a_global_default_setter_is_refused_and_the_victims_parsing_is_unchanged(
    host: EngineHost,
    column_files: dict[str, Path],
    parser_reference: RunResult,
    setter: str,
) -> None:
    """Point 5: the attacker's setter is a sandbox finding (registers with a warning, every run
    refuses it before loading); the victim formats and parses prices and reads the clock in the
    default zone, and gets a fresh JVM's signals on the same host, which was never restarted."""
    attacker = host.compile(
        _attack("Setter", f"        if (counter++ == 0) {{\n{GLOBAL_SETTERS[setter]}\n        }}")
    )
    assert attacker.ok
    assert not attacker.runnable
    assert any("setDefault" in d.message for d in attacker.sandbox_warnings)
    victim = host.compile(NUMBER_PARSER)
    pid = host.pid

    with pytest.raises(RunFailure) as caught:
        _run(host, attacker, column_files)

    assert caught.value.kind is RunFailureKind.SANDBOX_VIOLATION
    same_signals(_run(host, victim, column_files), parser_reference)
    assert host.pid == pid


def test_a_blocked_class_registers_with_a_warning_and_the_victims_run_is_unchanged(
    host: EngineHost, column_files: dict[str, Path], reference: RunResult
) -> None:
    """Point 13: the attacker's strategy registers (the finding is a warning naming the class
    and rule), its run is refused before its classes load, and the victim's run is as before."""
    body = (
        "        if (counter++ == 0) {\n"
        "            try {\n"
        '                java.nio.file.Path f = java.nio.file.Path.of("/etc/passwd");\n'
        "                counter += java.nio.file.Files.size(f);\n"
        "            }\n"
        "            catch (java.io.IOException e) { }\n"
        "        }"
    )
    attacker = host.compile(_attack("ReadsFile", body))
    assert attacker.ok
    assert not attacker.runnable
    warning = " ".join(d.message for d in attacker.sandbox_warnings)
    assert "demo.ReadsFile uses java.nio.file" in warning
    assert "not on the strategy allowlist" in warning
    pid = host.pid

    with pytest.raises(RunFailure) as caught:
        _run(host, attacker, column_files)

    assert caught.value.kind is RunFailureKind.SANDBOX_VIOLATION
    assert "not on the strategy allowlist" in caught.value.message
    _victim_is_unharmed(host, column_files, reference)
    assert host.pid == pid


# -- notice caps (docs/limits.md) ---------------------------------------------------------------


def test_a_run_keeps_200_distinct_notices_and_counts_the_rest(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    """A repeated line is kept once with its count; once 200 distinct lines are kept, every
    further log call is only counted (not even formatted), in one closing line. 3,000 ticks
    logging each of 1,500 distinct lines twice in a row."""
    noisy = host.compile(_attack("Chatty", '        log.info("line " + (counter++ / 2));'))

    notices = _run(host, noisy, column_files).notices

    assert len(notices) == 201
    assert notices[0] == "[INFO] line 0 (repeated 2 times)"
    assert notices[198] == "[INFO] line 198 (repeated 2 times)"
    # the 200th distinct line fills the cap: its repeat, the next call, is only counted
    assert notices[199] == "[INFO] line 199"
    assert notices[200] == (
        "2601 further notice(s) suppressed (limit 200 distinct notices per run)"
    )
