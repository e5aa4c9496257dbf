"""The engine host's built-in warm-up (``--warm-up``, ``WarmUp.java``): it leaves nothing a user
run can see (the same signals, info and notices as a host started without it), and it stays off
the request path (a compile pauses it, a run stops it and is answered as usual)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.integration.strategy.test_engine_host_run import INFORMER, _ticks
from tests.support.services import requires_java

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    HostConfig,
    RunRequest,
    RunResult,
    locate_engine_jar,
    write_columns,
)

pytestmark = requires_java

SMA_CROSS = (
    Path(__file__).resolve().parents[2] / "support" / "strategies" / "sma_cross_kline.java"
).read_text(encoding="utf-8")


def _config(warm_up: bool) -> HostConfig:
    return HostConfig(jar=locate_engine_jar(), heap_mb=256, warm_up=warm_up)


def _wait_for_warm_up(host: EngineHost, timeout_s: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        state: dict[str, Any] = host.ping()["warm_up"]
        if state["state"] != "running" or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


def _klines(rows: int, seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    close = 30_000.0 * np.exp(np.cumsum(rng.normal(0.0, 3e-4, rows)))
    open_ = np.concatenate(([close[0]], close[:-1]))
    ts = 1_700_000_000_000 + np.cumsum(rng.integers(1, 4, rows)).astype(np.int64) * 1_000
    return {
        "ts": ts,
        "closeTs": ts + 999,
        "open": open_,
        "high": np.maximum(open_, close) * 1.0001,
        "low": np.minimum(open_, close) * 0.9999,
        "close": close,
        "volume": rng.exponential(1.0, rows),
    }


@pytest.fixture(scope="module")
def kline_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_columns(tmp_path_factory.mktemp("klines"), DataType.KLINE, _klines(60_000))


@pytest.fixture(scope="module")
def tick_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_columns(tmp_path_factory.mktemp("ticks"), DataType.TICKER, _ticks(5_000))


@pytest.fixture(scope="module")
def compiled() -> dict[str, CompileResult]:
    with EngineHost(_config(warm_up=False)) as host:
        out = {"sma": host.compile(SMA_CROSS), "informer": host.compile(INFORMER)}
    for result in out.values():
        assert result.ok, [d.render() for d in result.diagnostics]
    return out


def _request(compiled: CompileResult, files: dict[str, Path], kind: DataType) -> RunRequest:
    assert compiled.main_class is not None
    return RunRequest(
        class_files=compiled.class_files,
        main_class=compiled.main_class,
        kind=kind,
        columns=files,
        instrument=Instrument("BTC", "USDT"),
    )


def _runs(
    host: EngineHost,
    compiled: dict[str, CompileResult],
    kline_files: dict[str, Path],
    tick_files: dict[str, Path],
) -> list[RunResult]:
    """A single run, a batch of three vectors and an info-signal run, in that order."""
    sma = _request(compiled["sma"], kline_files, DataType.KLINE)
    out = [host.run(dataclasses.replace(sma, params={"fast": 7, "slow": 30}))]
    for outcome in host.run_many(sma, [{"fast": 5, "slow": 20}, {}, {"fast": 12, "slow": 60}]):
        assert isinstance(outcome, RunResult), outcome
        out.append(outcome)
    out.append(host.run(_request(compiled["informer"], tick_files, DataType.TICKER)))
    return out


def _same(a: RunResult, b: RunResult) -> bool:
    return (
        np.array_equal(a.signal_ts, b.signal_ts)
        and np.array_equal(a.signal_side, b.signal_side)
        and np.array_equal(a.signal_price.view(np.int64), b.signal_price.view(np.int64))
        and a.info == b.info
        and a.notices == b.notices
        and a.events == b.events
        and (a.execution_mode, a.multi_entry) == (b.execution_mode, b.multi_entry)
    )


def test_runs_right_after_the_warm_up_match_a_host_started_without_it(
    compiled: dict[str, CompileResult], kline_files: dict[str, Path], tick_files: dict[str, Path]
) -> None:
    with EngineHost(_config(warm_up=False)) as cold:
        expected = _runs(cold, compiled, kline_files, tick_files)
    with EngineHost(_config(warm_up=True)) as warm:
        warm.start()
        state = _wait_for_warm_up(warm)
        got = _runs(warm, compiled, kline_files, tick_files)

    assert state["state"] == "done"
    assert state["rows"] > 0
    assert sum(r.signal_count for r in expected[:4]) > 100  # the crossover really trades
    assert [r.signal_count for r in got] == [r.signal_count for r in expected]
    assert all(_same(g, e) for g, e in zip(got, expected, strict=True))


def test_a_run_during_the_warm_up_stops_it_and_matches_a_host_without_it(
    compiled: dict[str, CompileResult], kline_files: dict[str, Path], tick_files: dict[str, Path]
) -> None:
    with EngineHost(_config(warm_up=False)) as cold:
        expected = _runs(cold, compiled, kline_files, tick_files)
    with EngineHost(_config(warm_up=True)) as warm:
        warm.start()
        before = warm.ping()["warm_up"]
        got = _runs(warm, compiled, kline_files, tick_files)
        after = warm.ping()["warm_up"]

    if before["state"] == "running":  # almost always: the run arrived mid-way
        assert after["state"] == "stopped"
    assert all(_same(g, e) for g, e in zip(got, expected, strict=True))


def test_a_compile_pauses_the_warm_up_which_finishes_afterwards(
    compiled: dict[str, CompileResult],
) -> None:
    with EngineHost(_config(warm_up=True)) as warm:
        warm.start()
        result = warm.compile(SMA_CROSS)
        state = _wait_for_warm_up(warm)

    assert result.ok
    assert result.class_files == compiled["sma"].class_files
    assert state["state"] == "done"


def test_a_host_starts_without_the_warm_up_unless_asked() -> None:
    with EngineHost(_config(warm_up=False)) as host:
        host.start()
        assert "warm_up" not in host.ping()
    assert "--warm-up" not in HostConfig().argv(Path("engine.jar"))
    assert HostConfig(warm_up=True).argv(Path("engine.jar"))[-1] == "--warm-up"
