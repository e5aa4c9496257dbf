"""Hour frames round-trip through lastra and parquet bit for bit."""

from __future__ import annotations

import doctest
import io
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from backtestd.domain.marketdata import DataKind, HourFrame
from backtestd.marketdata import segments
from backtestd.marketdata.segments import (
    decode_lastra,
    encode_csv,
    encode_lastra,
    encode_parquet,
    frame_summary,
    table_csv,
)

HOUR = datetime(2025, 6, 1, 12, tzinfo=UTC)


def _ticker_frame(rows: int) -> HourFrame:
    rng = np.random.default_rng(7)
    start = int(HOUR.timestamp() * 1000)
    ts = np.sort(rng.integers(start, start + 3_600_000, rows)).astype(np.int64)
    last = np.round(30_000 + np.cumsum(rng.normal(0, 3, rows)), 2)
    return HourFrame(
        DataKind.TICKERS,
        HOUR,
        {
            "ts": ts,
            "bid": last - 0.5,
            "bidSize": rng.random(rows),
            "ask": last + 0.5,
            "askSize": rng.random(rows),
            "last": last,
            "volume": rng.random(rows) / 3,
        },
    )


def test_lastra_round_trip_is_bit_exact() -> None:
    frame = _ticker_frame(5000)
    back = decode_lastra(DataKind.TICKERS, HOUR, encode_lastra(frame))
    for name, column in frame.columns.items():
        assert back.columns[name].dtype == column.dtype
        assert np.array_equal(back.columns[name].view(np.int64), column.view(np.int64)), name


def test_parquet_carries_the_same_columns_in_order() -> None:
    frame = _ticker_frame(300)
    table = pq.read_table(io.BytesIO(encode_parquet(frame)))
    assert table.column_names == list(frame.columns)
    for name, column in frame.columns.items():
        assert np.array_equal(table.column(name).to_numpy(), column)


def test_empty_hour_round_trips() -> None:
    frame = HourFrame.empty(DataKind.KLINES, HOUR)
    back = decode_lastra(DataKind.KLINES, HOUR, encode_lastra(frame))
    assert back.rows == 0
    assert frame_summary(back) == (None, 0.0)


def test_summary_is_last_trade_and_quote_volume() -> None:
    frame = _ticker_frame(50)
    last, volume = frame_summary(frame)
    assert last == frame.columns["last"][-1]
    expected = sum(
        p * s for p, s in zip(frame.columns["last"], frame.columns["volume"], strict=True)
    )
    assert volume == np.float64(expected) or abs(volume - expected) < 1e-9 * expected


def test_csv_reads_back_to_the_same_columns_and_values() -> None:
    frame = _ticker_frame(500)
    text = encode_csv(frame).decode()
    assert text.splitlines()[0] == "ts,bid,bidSize,ask,askSize,last,volume"
    table = pacsv.read_csv(io.BytesIO(text.encode()))
    assert table.num_rows == 500
    for name, column in frame.columns.items():
        assert np.array_equal(table.column(name).to_numpy(), column), name


def test_csv_of_an_empty_hour_is_its_header() -> None:
    assert encode_csv(HourFrame.empty(DataKind.KLINES, HOUR)) == b"ts,open,high,low,close,volume\n"


def test_csv_quotes_strings_and_leaves_nulls_empty() -> None:
    table = pa.table({"ts": [1, 2, 3], "info": ["plain", "a,b", None]})
    assert table_csv(table).decode() == 'ts,info\n1,"plain"\n2,"a,b"\n3,\n'


def test_docstring_examples() -> None:
    assert doctest.testmod(segments).failed == 0
