"""The pure parts of the live session client: updates as rows, typed signals, command text."""

from __future__ import annotations

import math

import numpy as np
import pytest

from backtestd.domain.marketdata import RUN_COLUMNS, DataType
from backtestd.strategy.jvm.live_types import (
    KlineUpdate,
    Side,
    SignalType,
    TickerUpdate,
    command_properties,
    decimal_text,
    rows_of,
    signals_of,
    updates_from_columns,
)
from backtestd.strategy.jvm.results import NO_FIELDS, RunResult


def test_updates_from_columns_keep_the_run_column_order() -> None:
    columns = {
        "ts": np.array([1_000, 2_000, 3_000], dtype=np.int64),
        "closeTs": np.array([1_999, 2_999, 3_999], dtype=np.int64),
        "open": np.array([1.0, 2.0, 3.0]),
        "high": np.array([1.5, 2.5, 3.5]),
        "low": np.array([0.5, 1.5, 2.5]),
        "close": np.array([1.25, 2.25, 3.25]),
        "volume": np.array([10.0, 20.0, 30.0]),
    }
    updates = updates_from_columns("kline", columns, 1)
    assert updates == [
        KlineUpdate(2_000, 2_999, 2.0, 2.5, 1.5, 2.25, 20.0),
        KlineUpdate(3_000, 3_999, 3.0, 3.5, 2.5, 3.25, 30.0),
    ]
    assert updates[0].event_ts_ms == 2_999
    assert rows_of(DataType.KLINE, updates)[0] == [columns[c][1] for c in RUN_COLUMNS["kline"]]
    assert type(rows_of(DataType.KLINE, updates)[0][0]) is int


def test_a_ticker_row_keeps_nan_and_its_time() -> None:
    update = TickerUpdate(5, math.nan, 1.0, 2.0, 1.0, math.nan, 0.0)
    row = rows_of(DataType.TICKER, [update])[0]
    assert row[0] == 5
    assert math.isnan(row[1])
    assert update.event_ts_ms == 5


def test_a_session_refuses_updates_of_another_kind() -> None:
    with pytest.raises(ValueError, match="ticker session cannot take a kline update"):
        rows_of(DataType.TICKER, [KlineUpdate(0, 999, 1, 1, 1, 1, 1)])
    with pytest.raises(ValueError, match="not funding"):
        updates_from_columns("funding", {"ts": [1], "rate": [0.1], "markPrice": [1.0]})
    with pytest.raises(ValueError, match="missing"):
        updates_from_columns("ticker", {"ts": [1]})


@pytest.mark.parametrize(
    ("value", "text"),
    [(1e-07, "0.0000001"), (92716.02, "92716.02"), (100.0, "100"), (1e16, "10000000000000000")],
)
def test_prices_become_plain_decimal_strings(value: float, text: str) -> None:
    assert decimal_text(value) == text
    assert float(text) == value


def test_command_properties_become_strings() -> None:
    assert command_properties({"a": "x", "b": 2, "c": 1.5, "d": True, "e": None, "f": [1]}) == {
        "a": "x",
        "b": "2",
        "c": "1.5",
        "d": "true",
        "e": None,
        "f": "[1]",
    }


def test_signals_are_typed_from_a_run_answer() -> None:
    ts = np.array([10, 20, 30], dtype="<i8").tobytes()
    side = np.array([1, 0, -1], dtype=np.int8).tobytes()
    price = np.array([5.5, math.nan, 6.0], dtype="<f8").tobytes()
    answer = {"signals": 3, "info_at": [1], "info": [{"k": [1, 2]}], "events": 3}
    signals = signals_of(RunResult.from_answer(answer, (ts, side, price)))
    assert [(s.ts_ms, s.type, s.side, s.price) for s in signals] == [
        (10, SignalType.HINT, Side.BUY, 5.5),
        (20, SignalType.INFO, None, None),
        (30, SignalType.HINT, Side.SELL, 6.0),
    ]
    assert signals[1].data == {"k": [1, 2]}
    assert signals[0].data is NO_FIELDS
