"""Columns on the heap (``ColumnCache``): a batch reads a heap copy of its input columns, kept
between requests, and its runs see exactly what runs reading the mapped files see; data over the
budget, single runs on a cold cache and files replaced in place keep the mapped path honest."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from tests.support.market_columns import bars, ticks_with_gaps
from tests.support.services import requires_java
from tests.support.strategies import ENGINE_IMPORTS

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import (
    EngineHost,
    HostConfig,
    RunRequest,
    RunResult,
    locate_engine_jar,
    write_columns,
)

pytestmark = requires_java

_HEADER = ENGINE_IMPORTS

_LISTENER = """
    @StrategyProperty(name = "n", description = "SMA length", defaultValue = "10")
    private int n = 10;

    class L extends AbstractWindowListener {
        private int k;

        L(AbstractStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            k++;
            double s = indicators.getValue("s");
            if (prev <= s && actual > s) {
                emitBuy(actual);
            } else if (prev >= s && actual < s) {
                emitSell(actual);
            }
            if (k % 37 == 0) {
                emitSignal(createInfoSignal().set("price", actual)FIELDS);
            }
        }
    }
}
"""

# Every column of the data kind reaches a field node, and every 37th window sends them out.
KLINE_FIELDS = (
    _HEADER
    + """
public class KlineFields extends AbstractKlineStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator ind) {
        ind.addPrice().add("o", TickerValueSource.Open).add("h", TickerValueSource.High)
            .add("l", TickerValueSource.Low).add("v", TickerValueSource.Volume).sma("s", n)
            .window("price", WindowTime.s1, new L(this, ind));
    }
"""
    + _LISTENER.replace(
        "FIELDS", "".join(f'.set("{f}", indicators.getValue("{f}"))' for f in ("o", "h", "l", "v"))
    )
)

TICKER_FIELDS = (
    _HEADER
    + """
public class TickerFields extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator ind) {
        ind.addPrice().add("b", TickerValueSource.Bid).add("bs", TickerValueSource.BidSize)
            .add("a", TickerValueSource.Ask).add("as", TickerValueSource.AskSize)
            .add("v", TickerValueSource.Volume).sma("s", n)
            .window("price", WindowTime.s1, new L(this, ind));
    }
"""
    + _LISTENER.replace(
        "FIELDS",
        "".join(f'.set("{f}", indicators.getValue("{f}"))' for f in ("b", "bs", "a", "as", "v")),
    )
)

VECTORS = [{"n": n} for n in (4, 9, 25)]
ROWS = 20_000  # 7 columns of 20,000 rows: 1.07 MiB, above a 1 MiB cache


def _host(column_cache_mb: int) -> EngineHost:
    return EngineHost(
        HostConfig(jar=locate_engine_jar(), heap_mb=256, column_cache_mb=column_cache_mb)
    )


@pytest.fixture(scope="module")
def mapped() -> Iterator[EngineHost]:
    """A host that reads the mapped files for every run (no column cache)."""
    with _host(0) as host:
        yield host


def _request(host: EngineHost, text: str, kind: DataType, files: dict[str, Path]) -> RunRequest:
    compiled = host.compile(text)
    assert compiled.ok, compiled.diagnostics
    assert compiled.main_class is not None
    return RunRequest(
        class_files=compiled.class_files,
        main_class=compiled.main_class,
        kind=kind,
        columns=files,
        instrument=Instrument("BTC", "USDT"),
    )


def _batch(host: EngineHost, text: str, kind: DataType, files: dict[str, Path]) -> list[RunResult]:
    outcomes = host.run_many(_request(host, text, kind, files), VECTORS)
    results = [o for o in outcomes if isinstance(o, RunResult)]
    assert len(results) == len(VECTORS), outcomes
    return results


def _single(host: EngineHost, text: str, kind: DataType, files: dict[str, Path]) -> RunResult:
    request = _request(host, text, kind, files)
    return host.run(dataclasses.replace(request, params=VECTORS[0]))


def _signature(r: RunResult) -> tuple[object, ...]:
    return (
        r.signal_ts.tolist(),
        r.signal_side.tolist(),
        r.signal_price.view(np.int64).tolist(),
        repr(r.info),  # repr: NaN fields compare equal as text
        r.notices,
    )


def _column_cache(host: EngineHost) -> dict[str, int]:
    status: dict[str, int] = host.ping()["column_cache"]
    return status


@pytest.mark.parametrize(
    ("text", "kind", "data"),
    [
        (KLINE_FIELDS, DataType.KLINE, bars(ROWS, gaps=True)),
        (TICKER_FIELDS, DataType.TICKER, ticks_with_gaps(ROWS)),
    ],
    ids=["kline", "ticker"],
)
def test_batches_read_a_heap_copy_kept_between_requests_and_see_the_same_data(
    mapped: EngineHost,
    tmp_path: Path,
    text: str,
    kind: DataType,
    data: dict[str, np.ndarray],
) -> None:
    files = write_columns(tmp_path, kind, data)
    expected = [_signature(r) for r in _batch(mapped, text, kind, files)]
    assert all(len(e[0]) > 100 and len(e[3]) > 20 for e in expected)
    with _host(64) as cached:
        first = _batch(cached, text, kind, files)
        assert _column_cache(cached) == {"bytes": 7 * (8 * ROWS + 16), "hits": 0, "copies": 1}
        second = _batch(cached, text, kind, files)
        single = _single(cached, text, kind, files)
        assert _column_cache(cached) == {"bytes": 7 * (8 * ROWS + 16), "hits": 2, "copies": 1}
    assert [_signature(r) for r in first] == expected
    assert [_signature(r) for r in second] == expected
    assert _signature(single) == expected[0]


def test_the_fields_a_kline_run_reads_from_the_copy_are_the_files_values(tmp_path: Path) -> None:
    """Checked against the columns themselves: a swapped or shifted column would show here."""
    data = bars(ROWS, gaps=True)
    files = write_columns(tmp_path, DataType.KLINE, data)
    with _host(64) as cached:
        runs = _batch(cached, KLINE_FIELDS, DataType.KLINE, files)
        assert _column_cache(cached)["copies"] == 1
    row_of = {int(t): i for i, t in enumerate(data["closeTs"])}
    checked = 0
    for run in runs:
        for ts, side, info in zip(run.signal_ts.tolist(), run.signal_side, run.info, strict=True):
            if side != 0:
                continue
            i = row_of[ts]  # a kline's window closes after its bar: the values are that bar's
            assert info["price"] == data["close"][i]
            assert (info["o"], info["h"], info["l"], info["v"]) == (
                data["open"][i],
                data["high"][i],
                data["low"][i],
                data["volume"][i],
            )
            checked += 1
    assert checked > 3 * 20


def test_data_over_the_budget_and_single_runs_on_a_cold_cache_read_the_files(
    mapped: EngineHost, tmp_path: Path
) -> None:
    files = write_columns(tmp_path, DataType.KLINE, bars(ROWS, gaps=True))
    expected = [_signature(r) for r in _batch(mapped, KLINE_FIELDS, DataType.KLINE, files)]
    with _host(1) as small:
        assert [_signature(r) for r in _batch(small, KLINE_FIELDS, DataType.KLINE, files)] == (
            expected
        )
        assert _column_cache(small) == {"bytes": 0, "hits": 0, "copies": 0}
    with _host(64) as cold:
        assert _signature(_single(cold, KLINE_FIELDS, DataType.KLINE, files)) == expected[0]
        assert _column_cache(cold) == {"bytes": 0, "hits": 0, "copies": 0}


def test_columns_rewritten_in_place_are_copied_again(mapped: EngineHost, tmp_path: Path) -> None:
    files = write_columns(tmp_path, DataType.KLINE, bars(ROWS, gaps=True))
    with _host(64) as cached:
        before = [_signature(r) for r in _batch(cached, KLINE_FIELDS, DataType.KLINE, files)]
        rewritten = write_columns(tmp_path, DataType.KLINE, bars(ROWS, seed=12, gaps=True))
        assert rewritten == files  # the same paths, new contents
        after = [_signature(r) for r in _batch(cached, KLINE_FIELDS, DataType.KLINE, files)]
        assert _column_cache(cached)["copies"] == 2
    assert after != before
    assert after == [_signature(r) for r in _batch(mapped, KLINE_FIELDS, DataType.KLINE, files)]
