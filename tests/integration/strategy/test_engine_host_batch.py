"""Batch runs (``run_batch``/``run_many``) against a real JVM: the same signals as one run per
vector, failures that stay with their vector, the per-vector limits, cancellation."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.integration.strategy.test_engine_host_run import MOMENTUM, _expected, _ticks
from tests.support.services import requires_java
from tests.support.tenants import ticker_request

from backtestd.domain.marketdata import DataType
from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    HostConfig,
    RunFailure,
    RunFailureKind,
    RunRequest,
    RunResult,
    locate_engine_jar,
    write_columns,
)

pytestmark = requires_java

# Throws once the threshold is the poisoned value, at the first tick: only that vector fails.
POISONED = MOMENTUM.replace(
    "        double last = ticker.last();\n",
    "        double last = ticker.last();\n"
    "        if (threshold == 0.0042) {\n"
    '            throw new IllegalStateException("poisoned vector");\n'
    "        }\n",
)

# Spins forever for one threshold: that vector overruns its own CPU limit.
SPINNER = MOMENTUM.replace(
    "        super.update(ticker);\n",
    "        super.update(ticker);\n        while (threshold == 0.0042) { prev += 1e-9; }\n",
)

THRESHOLDS = [0.001, 0.002, 0.0042, 0.003, 0.004]


@pytest.fixture(scope="module")
def host() -> Iterator[EngineHost]:
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256)) as engine:
        yield engine


@pytest.fixture(scope="module")
def ticks() -> dict[str, np.ndarray]:
    return _ticks(5_000)


@pytest.fixture(scope="module")
def files(
    tmp_path_factory: pytest.TempPathFactory, ticks: dict[str, np.ndarray]
) -> dict[str, Path]:
    return write_columns(tmp_path_factory.mktemp("ticks"), DataType.TICKER, ticks)


def _compiled(host: EngineHost, source: str) -> CompileResult:
    result = host.compile(source)
    assert result.ok, [d.render() for d in result.diagnostics]
    return result


def _request(compiled: CompileResult, files: dict[str, Path], **kw: Any) -> RunRequest:
    return replace(ticker_request(compiled, files), **kw)


def _same_run(a: RunResult, b: RunResult) -> None:
    np.testing.assert_array_equal(a.signal_ts, b.signal_ts)
    np.testing.assert_array_equal(a.signal_side, b.signal_side)
    np.testing.assert_array_equal(a.signal_price, b.signal_price)
    assert (a.events, a.execution_mode, a.multi_entry) == (
        b.events,
        b.execution_mode,
        b.multi_entry,
    )
    assert a.info == b.info
    assert a.notices == b.notices


def test_batch_gives_each_vector_the_signals_of_its_own_run(
    host: EngineHost, files: dict[str, Path], ticks: dict[str, np.ndarray]
) -> None:
    compiled = _compiled(host, MOMENTUM)
    vectors = [{"threshold": t} for t in THRESHOLDS]

    batch = host.run_batch(_request(compiled, files), vectors)

    assert len(batch) == len(vectors)
    for params, outcome in zip(vectors, batch, strict=True):
        assert isinstance(outcome, RunResult)
        _same_run(outcome, host.run(_request(compiled, files, params=params)))
        assert outcome.signal_ts.tolist() == _expected(ticks, params["threshold"])[0]
        assert outcome.events == 5_000
        assert outcome.cpu_ns > 0


# Counts its instances in a static field and logs the count on the first tick: with state of
# its own, every vector needs its own copy of the class to start from zero.
STATIC_COUNTER = MOMENTUM.replace(
    "    private boolean holding;\n",
    "    private boolean holding;\n    private static int instances;\n"
    "    public Momentum() {\n        instances++;\n    }\n",
).replace(
    "        double last = ticker.last();\n",
    "        double last = ticker.last();\n"
    "        if (Double.isNaN(prev)) {\n"
    '            log.info("instances " + instances);\n'
    "        }\n",
)

# Only a compile-time constant in a static field: nothing of the class can change, so a batch
# may run its vectors on one copy of it.
CONSTANT_ONLY = MOMENTUM.replace(
    "    private boolean holding;\n",
    "    private boolean holding;\n    private static final double SCALE = 1.0;\n",
).replace("change > threshold", "change > threshold * SCALE")


def test_static_state_never_reaches_the_next_vector_of_a_batch(
    host: EngineHost, files: dict[str, Path]
) -> None:
    compiled = _compiled(host, STATIC_COUNTER)
    vectors = [{"threshold": t} for t in THRESHOLDS * 4]  # more than one loader's share

    batch = host.run_batch(_request(compiled, files), vectors)

    assert len(batch) == len(vectors)
    for outcome in batch:
        assert isinstance(outcome, RunResult)
        assert outcome.notices == ("[INFO] instances 1",)


def test_a_batch_of_stateless_classes_gives_every_vector_its_own_runs_signals(
    host: EngineHost, files: dict[str, Path], ticks: dict[str, np.ndarray]
) -> None:
    """More vectors than the JDK's reflection inflation threshold (15) on classes the host may
    share between vectors: each still gets exactly the signals of its own single run."""
    compiled = _compiled(host, CONSTANT_ONLY)
    vectors = [{"threshold": t} for t in THRESHOLDS * 4]

    batch = host.run_batch(_request(compiled, files), vectors)

    assert len(batch) == len(vectors)
    for params, outcome in zip(vectors, batch, strict=True):
        assert isinstance(outcome, RunResult), outcome
        assert outcome.signal_ts.tolist() == _expected(ticks, params["threshold"])[0]
    _same_run(batch[-1], host.run(_request(compiled, files, params=vectors[-1])))


# Logs its class's identity at the first tick: equal across runs exactly when they ran on one
# loaded copy of the class. Throws for the poisoned threshold, after logging.
CLASS_IDENTITY = CONSTANT_ONLY.replace(
    "        double last = ticker.last();\n",
    "        double last = ticker.last();\n"
    "        if (Double.isNaN(prev)) {\n"
    '            log.info("class " + getClass().hashCode());\n'
    "            if (threshold == 0.0042) {\n"
    '                throw new IllegalStateException("poisoned vector");\n'
    "            }\n"
    "        }\n",
)


def _class_identity(outcome: RunResult | RunFailure) -> str:
    assert isinstance(outcome, RunResult), outcome
    (line,) = outcome.notices
    return line


def test_a_stateless_strategy_keeps_one_loaded_class_across_requests_until_a_run_fails(
    host: EngineHost, files: dict[str, Path], ticks: dict[str, np.ndarray]
) -> None:
    """A sweep sends its vectors in many requests; a strategy whose classes cannot hold static
    state runs all of them on one loaded copy (the JIT keeps it compiled), well past the JDK's
    reflection inflation threshold (15 calls), with each run's own signals. A failed run drops
    that copy: the next run loads the classes afresh."""
    compiled = _compiled(host, CLASS_IDENTITY)
    single = [host.run(_request(compiled, files, params={"threshold": 0.001})) for _ in range(3)]
    batches = [
        host.run_batch(_request(compiled, files), [{"threshold": 0.002}] * 6) for _ in range(3)
    ]
    runs = single + [outcome for batch in batches for outcome in batch]

    assert len({_class_identity(run) for run in runs}) == 1  # 21 runs, 6 requests, one class
    for outcome in batches[-1]:
        assert isinstance(outcome, RunResult)
        assert outcome.signal_ts.tolist() == _expected(ticks, 0.002)[0]

    failed = host.run_batch(
        _request(compiled, files), [{"threshold": 0.0042}, {"threshold": 0.002}]
    )
    assert isinstance(failed[0], RunFailure)
    after = host.run(_request(compiled, files, params={"threshold": 0.002}))
    assert _class_identity(failed[1]) != _class_identity(runs[0])
    assert _class_identity(after) == _class_identity(failed[1])


def test_classes_that_can_hold_static_state_get_a_fresh_copy_in_every_request(
    host: EngineHost, files: dict[str, Path]
) -> None:
    compiled = _compiled(host, STATIC_COUNTER)
    for _ in range(3):
        outcome = host.run(_request(compiled, files, params={"threshold": 0.001}))
        assert isinstance(outcome, RunResult)
        assert outcome.notices == ("[INFO] instances 1",)


def test_batch_row_range_applies_to_every_vector(host: EngineHost, files: dict[str, Path]) -> None:
    compiled = _compiled(host, MOMENTUM)
    vectors = [{"threshold": 0.001}, {"threshold": 0.002}]

    batch = host.run_batch(_request(compiled, files, rows=(1_000, 3_000)), vectors)

    for params, outcome in zip(vectors, batch, strict=True):
        assert isinstance(outcome, RunResult)
        assert outcome.events == 2_000
        _same_run(outcome, host.run(_request(compiled, files, params=params, rows=(1_000, 3_000))))


def test_a_vector_that_throws_fails_alone_and_the_others_complete(
    host: EngineHost, files: dict[str, Path], ticks: dict[str, np.ndarray]
) -> None:
    compiled = _compiled(host, POISONED)
    pid = host.pid

    batch = host.run_batch(_request(compiled, files), [{"threshold": t} for t in THRESHOLDS])

    failed = batch[THRESHOLDS.index(0.0042)]
    assert isinstance(failed, RunFailure)
    assert failed.kind is RunFailureKind.USER_EXCEPTION
    assert "poisoned vector" in failed.message
    assert failed.frames
    assert failed.frames[0].line is not None  # the user's own line
    for t, outcome in zip(THRESHOLDS, batch, strict=True):
        if t != 0.0042:
            assert isinstance(outcome, RunResult)
            assert outcome.signal_ts.tolist() == _expected(ticks, t)[0]
    assert host.pid == pid  # an exception is not fatal: the same JVM goes on


def test_an_unknown_property_in_one_vector_is_its_property_error(
    host: EngineHost, files: dict[str, Path]
) -> None:
    compiled = _compiled(host, MOMENTUM)

    batch = host.run_batch(_request(compiled, files), [{"threshold": 0.002}, {"nope": 1}])

    assert isinstance(batch[0], RunResult)
    assert isinstance(batch[1], RunFailure)
    assert batch[1].kind is RunFailureKind.PROPERTY_ERROR
    assert batch[1].declared_properties == ("threshold",)


def test_a_vector_over_its_cpu_limit_is_named_and_run_many_finishes_the_others(
    files: dict[str, Path], ticks: dict[str, np.ndarray]
) -> None:
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=128)) as engine:
        compiled = _compiled(engine, SPINNER)
        request = _request(compiled, files, cpu_limit_s=1.0)
        vectors = [{"threshold": t} for t in THRESHOLDS]

        with pytest.raises(RunFailure) as caught:
            engine.run_batch(request, vectors)
        assert caught.value.kind is RunFailureKind.LIMIT_EXCEEDED
        assert caught.value.details["vector"] == THRESHOLDS.index(0.0042)

        outcomes = engine.run_many(request, vectors)

    assert len(outcomes) == len(vectors)
    for t, outcome in zip(THRESHOLDS, outcomes, strict=True):
        if t == 0.0042:
            assert isinstance(outcome, RunFailure)
            assert outcome.kind is RunFailureKind.LIMIT_EXCEEDED
            assert "CPU-time limit of 1.0 s" in outcome.message
        else:
            assert isinstance(outcome, RunResult)
            assert outcome.signal_ts.tolist() == _expected(ticks, t)[0]


def test_the_cpu_limit_applies_to_each_vector_not_to_the_batch(
    host: EngineHost, files: dict[str, Path]
) -> None:
    compiled = _compiled(host, MOMENTUM)
    single = host.run(_request(compiled, files, params={"threshold": 0.002}))
    # A limit a little above one vector's CPU, far below the whole batch's.
    limit_s = max(0.5, 3 * single.cpu_ns / 1e9)
    vectors = [{"threshold": 0.002}] * int(4 * limit_s / max(single.cpu_ns / 1e9, 1e-3))

    batch = host.run_batch(_request(compiled, files, cpu_limit_s=limit_s), vectors[:200])

    assert all(isinstance(o, RunResult) for o in batch)


def test_cancelling_a_batch_kills_it_at_once_and_the_next_batch_is_unharmed(
    files: dict[str, Path], ticks: dict[str, np.ndarray]
) -> None:
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=128)) as engine:
        compiled = _compiled(engine, SPINNER)
        pid = engine.pid
        asked_at = time.monotonic() + 0.5
        started = time.monotonic()
        with pytest.raises(RunFailure) as caught:
            engine.run_many(
                _request(compiled, files, cpu_limit_s=30),
                [{"threshold": 0.001}, {"threshold": 0.0042}, {"threshold": 0.002}],
                should_stop=lambda: time.monotonic() >= asked_at,
            )
        assert caught.value.kind is RunFailureKind.CANCELLED
        assert time.monotonic() - started < 2.0  # about a second, far below the 30 s limit
        assert pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)

        fresh = _compiled(engine, MOMENTUM)
        batch = engine.run_batch(_request(fresh, files), [{"threshold": 0.002}])
        assert isinstance(batch[0], RunResult)
        assert batch[0].signal_ts.tolist() == _expected(ticks, 0.002)[0]


# About 7 M characters of info fields per run (1,000 signals of a 7,000-character string).
CHATTY = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

public class Chatty extends AbstractTickerStrategy {
    @StrategyProperty(name = "tag", description = "tag", defaultValue = "0")
    private int tag = 0;
    private int seen;
    private final String text = "x".repeat(7_000);

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
        seen++;
        if (seen % 5 == 0) {
            emitSignal(createInfoStrategySignal(ticker.instrument()).set("t", tag).set("s", text));
        }
    }
}
"""


def test_a_batch_past_its_output_budget_answers_early_and_run_many_sends_the_rest(
    host: EngineHost, files: dict[str, Path]
) -> None:
    compiled = _compiled(host, CHATTY)
    vectors = [{"tag": t} for t in range(7)]

    early = host.run_batch(_request(compiled, files), vectors)
    outcomes = host.run_many(_request(compiled, files), vectors)

    assert len(early) == 5  # 4 x 7 M characters are below the 32 MiB budget, 5 are past it
    assert len(outcomes) == 7
    for t, outcome in enumerate(outcomes):
        assert isinstance(outcome, RunResult)
        assert outcome.signal_count == 1_000
        assert outcome.info[0]["t"] == t


# Overflows the stack and swallows the error for one threshold (the JVM counts it all the same).
SWALLOWER = MOMENTUM.replace(
    "        double last = ticker.last();\n",
    "        double last = ticker.last();\n"
    "        if (threshold == 0.0042 && prev != prev) {\n"
    "            try {\n"
    "                dive(0);\n"
    "            } catch (StackOverflowError swallowed) {\n"
    "                prev = last;\n"
    "            }\n"
    "        }\n",
).replace(
    "    @Override\n    public void update(",
    "    private int dive(int depth) {\n        return dive(depth + 1) + 1;\n    }\n\n"
    "    @Override\n    public void update(",
)


def test_a_vector_that_swallows_a_stack_overflow_ends_its_batch_and_the_rest_get_a_fresh_jvm(
    files: dict[str, Path], ticks: dict[str, np.ndarray]
) -> None:
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=128)) as engine:
        compiled = _compiled(engine, SWALLOWER)
        request = _request(compiled, files)
        vectors = [{"threshold": t} for t in THRESHOLDS]
        first = engine.pid

        # Checked after every vector: the answer stops at the one that did it.
        early = engine.run_batch(request, vectors, check_each=True)
        assert len(early) == THRESHOLDS.index(0.0042) + 1  # stopped after the damaging vector
        assert engine.pid is None  # the host exited after answering
        # Checked once, after the batch: which vector did it is unknown, so none is answered.
        assert engine.run_batch(request, vectors) == []
        assert engine.pid is None
        # run_many sends that batch again, checked after every vector, then the rest.
        outcomes = engine.run_many(request, vectors)

        assert engine.pid not in (None, first)
    assert len(outcomes) == len(vectors)
    for t, outcome in zip(THRESHOLDS, outcomes, strict=True):
        assert isinstance(outcome, RunResult)
        if t != 0.0042:
            assert outcome.signal_ts.tolist() == _expected(ticks, t)[0]
