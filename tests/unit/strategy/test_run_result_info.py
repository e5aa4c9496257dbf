"""``RunResult.from_answer`` rebuilds one info entry per signal from the host's sparse form."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from backtestd.strategy.jvm import EngineHostError, RunResult


def _payloads(signals: int) -> tuple[bytes, ...]:
    ts = np.arange(signals, dtype="<i8").tobytes()
    side = np.ones(signals, dtype=np.int8).tobytes()
    price = np.full(signals, 1.5, dtype="<f8").tobytes()
    return ts, side, price


def _answer(**fields: Any) -> dict[str, Any]:
    return {"signals": 0, "notices": [], "events": 10, "elapsed_ns": 1, "cpu_ns": 1, **fields}


def test_sparse_info_without_entries_gives_an_empty_dict_per_signal() -> None:
    result = RunResult.from_answer(_answer(info_at=[], info=[]), _payloads(4))

    assert result.info == ({}, {}, {}, {})
    assert all(isinstance(entry, dict) and not entry for entry in result.info)
    assert [json.dumps(entry) for entry in result.info] == ["{}"] * 4


def test_the_shared_empty_info_of_plain_signals_refuses_changes() -> None:
    result = RunResult.from_answer(_answer(info_at=[], info=[]), _payloads(2))

    with pytest.raises(TypeError, match="read-only"):
        result.info[0]["x"] = 1
    with pytest.raises(TypeError, match="read-only"):
        result.info[1].update(x=1)
    assert result.info == ({}, {})


def test_sparse_info_entries_land_at_their_signal_indices() -> None:
    answer = _answer(info_at=[0, 3], info=[{"a": 1}, {"b": [2, "x"]}])

    result = RunResult.from_answer(answer, _payloads(5))

    assert result.info == ({"a": 1}, {}, {}, {"b": [2, "x"]}, {})


def test_dense_info_of_an_older_host_is_kept_as_it_came() -> None:
    result = RunResult.from_answer(_answer(info=[{}, {"k": "v"}]), _payloads(2))

    assert result.info == ({}, {"k": "v"})


def test_sparse_info_with_no_signals_is_empty() -> None:
    assert RunResult.from_answer(_answer(info_at=[], info=[]), _payloads(0)).info == ()


@pytest.mark.parametrize(
    ("info_at", "info"),
    [
        ([0, 1], [{"a": 1}]),  # more indices than entries
        ([5], [{"a": 1}]),  # past the last signal
        ([-1], [{"a": 1}]),
        ([2, 2], [{"a": 1}, {"b": 2}]),  # a repeat would drop an entry
        ([2, 0], [{"a": 1}, {"b": 2}]),  # a step back
        ([True], [{"a": 1}]),  # a bool is not an index
        ([1.0], [{"a": 1}]),
        ("0", [{"a": 1}]),
        ([0], None),
    ],
)
def test_sparse_info_that_does_not_fit_the_signals_is_refused(info_at: Any, info: Any) -> None:
    """A broken answer is the host's error (EngineHostError, which the pool handles), never a
    TypeError or a silently changed info list."""
    with pytest.raises(EngineHostError, match="info"):
        RunResult.from_answer(_answer(info_at=info_at, info=info), _payloads(3))
