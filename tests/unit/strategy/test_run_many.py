"""``EngineHost.run_many``'s fallbacks, with the JVM requests replaced (no JVM)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import EngineHost, RunFailure, RunFailureKind, RunRequest, RunResult
from backtestd.strategy.jvm.host import Outcome, Params, StopCheck, batch_outcomes

REQUEST = RunRequest(
    class_files={},
    main_class="S",
    kind=DataType.TICKER,
    columns={},
    instrument=Instrument("BTC", "USDT"),
)


def _result(tag: int) -> RunResult:
    return RunResult(
        signal_ts=np.array([tag], dtype=np.int64),
        signal_side=np.array([1], dtype=np.int8),
        signal_price=np.array([1.0]),
        info=(),
        notices=(),
        events=1,
        elapsed_ns=1,
        cpu_ns=1,
        execution_mode="LONG",
        percent_gain=float("nan"),
        multi_entry=False,
    )


class ScriptedHost(EngineHost):
    """Vector ``{"v": n}`` succeeds with signal ts ``n`` unless ``n`` is in ``bad``; a batch
    holding a bad vector fails as a whole with ``batch_failure``, naming it when ``named``. A
    vector in ``damaging`` succeeds but damages the JVM, as the engine host answers it: a
    batch of more than one vector checked once answers nothing, one checked after every
    vector stops after it."""

    def __init__(
        self,
        bad: set[int],
        kind: RunFailureKind,
        named: bool,
        damaging: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__()
        self.bad, self.kind, self.named, self.damaging = bad, kind, named, damaging
        self.batches: list[list[int]] = []
        self.checked_each: list[bool] = []
        self.alone: list[int] = []

    def run_batch(
        self,
        request: RunRequest,
        vectors: Sequence[Params],
        should_stop: StopCheck | None = None,
        check_each: bool = False,
    ) -> list[Outcome]:
        values = [int(p["v"]) for p in vectors]
        self.batches.append(values)
        self.checked_each.append(check_each)
        for i, v in enumerate(values):
            if v in self.bad:
                details = {"vector": i} if self.named else {}
                raise RunFailure(self.kind, f"vector {v} failed", details=details)
        for i, v in enumerate(values):
            if v in self.damaging:
                if check_each:
                    return [_result(w) for w in values[: i + 1]]
                return [] if len(values) > 1 else [_result(v)]
        return [_result(v) for v in values]

    def run(self, request: RunRequest, should_stop: StopCheck | None = None) -> RunResult:
        v = int(request.params["v"])
        self.alone.append(v)
        if v in self.bad:
            raise RunFailure(self.kind, f"vector {v} failed alone")
        return _result(v)


def _tags(outcomes: list[Outcome]) -> list[int | str]:
    return [
        int(o.signal_ts[0]) if isinstance(o, RunResult) else f"failed: {o.message}"
        for o in outcomes
    ]


def test_a_named_culprit_gets_the_failure_and_the_rest_rerun_as_one_batch() -> None:
    host = ScriptedHost({2}, RunFailureKind.LIMIT_EXCEEDED, named=True)

    outcomes = host.run_many(REQUEST, [{"v": v} for v in range(5)])

    assert _tags(outcomes) == [0, 1, "failed: vector 2 failed", 3, 4]
    assert host.batches == [[0, 1, 2, 3, 4], [0, 1, 3, 4]]
    assert host.alone == []


def test_an_unnamed_batch_failure_runs_each_vector_alone() -> None:
    host = ScriptedHost({1}, RunFailureKind.HOST_CRASHED, named=False)

    outcomes = host.run_many(REQUEST, [{"v": v} for v in range(3)])

    assert _tags(outcomes) == [0, "failed: vector 1 failed alone", 2]
    assert host.alone == [0, 1, 2]


def test_out_of_memory_in_a_batch_is_not_blamed_on_the_named_vector() -> None:
    host = ScriptedHost({1}, RunFailureKind.OUT_OF_MEMORY, named=True)

    outcomes = host.run_many(REQUEST, [{"v": v} for v in range(3)])

    assert _tags(outcomes) == [0, "failed: vector 1 failed alone", 2]
    assert host.alone == [0, 1, 2]


def test_a_named_failure_that_may_be_host_damage_runs_each_vector_alone() -> None:
    host = ScriptedHost({1}, RunFailureKind.HOST_CRASHED, named=True)

    outcomes = host.run_many(REQUEST, [{"v": v} for v in range(3)])

    assert _tags(outcomes) == [0, "failed: vector 1 failed alone", 2]
    assert host.alone == [0, 1, 2]


def test_a_batch_that_may_have_damaged_the_jvm_is_sent_again_checked_after_every_vector() -> None:
    host = ScriptedHost(set(), RunFailureKind.USER_EXCEPTION, named=True, damaging=frozenset({2}))

    outcomes = host.run_many(REQUEST, [{"v": v} for v in range(5)])

    assert _tags(outcomes) == [0, 1, 2, 3, 4]
    assert host.batches == [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [3, 4]]
    assert host.checked_each == [False, True, False]


def test_a_cancelled_batch_raises() -> None:
    host = ScriptedHost({0}, RunFailureKind.CANCELLED, named=True)

    with pytest.raises(RunFailure) as caught:
        host.run_many(REQUEST, [{"v": 0}, {"v": 1}])
    assert caught.value.kind is RunFailureKind.CANCELLED


def test_batch_outcomes_give_each_ok_entry_its_three_payloads_in_order() -> None:
    ts = np.array([5, 6], dtype="<i8").tobytes()
    header = {
        "results": [
            {"status": "ok", "events": 2},
            {"status": "error", "error": {"kind": "user_exception", "message": "boom"}},
            {"status": "ok", "events": 3},
        ]
    }
    payloads = (ts, b"\x01\xff", np.array([1.5, 2.5]).tobytes(), b"", b"", b"")

    first, second, third = batch_outcomes(header, payloads, 3)

    assert isinstance(first, RunResult)
    assert first.signal_ts.tolist() == [5, 6]
    assert first.signal_side.tolist() == [1, -1]
    assert isinstance(second, RunFailure)
    assert second.kind is RunFailureKind.USER_EXCEPTION
    assert isinstance(third, RunResult)
    assert third.signal_count == 0
    assert third.events == 3
