"""SimExchange API: listing, coverage windows, errors and determinism."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest

from backtestd.domain.marketdata import (
    COLUMNS_BY_KIND,
    DataKind,
    HourFrame,
    Instrument,
    Segment,
)
from backtestd.marketdata.sim import SimExchange

START = datetime(2026, 1, 1, tzinfo=UTC)
BTC = Instrument.parse("BTC/USDT")
BTC_PERP = Instrument.parse("BTC/USDT:USDT")
ADA = Instrument.parse("ADA/USDT")


def _digest(frame: HourFrame) -> str:
    """Bit-level fingerprint of a frame: dtype, shape and raw bytes of every column."""
    h = hashlib.sha256()
    for name, values in frame.columns.items():
        h.update(f"{name}:{values.dtype.str}:{values.shape}".encode())
        h.update(np.ascontiguousarray(values).tobytes())
    return h.hexdigest()


def _assert_identical(a: HourFrame, b: HourFrame) -> None:
    assert (a.kind, a.hour) == (b.kind, b.hour)
    assert list(a.columns) == list(b.columns)
    for name in a.columns:
        assert a.columns[name].dtype == b.columns[name].dtype
        assert np.array_equal(a.columns[name], b.columns[name]), name


def test_lists_required_spot_pairs_and_perpetuals() -> None:
    listed = SimExchange(START).instruments()
    symbols = {i.symbol for i in listed}

    required_spot = {"BTC/USDT", "ETH/USDT", "SOL/USDT", "BNB/USDT", "XRP/USDT", "ADA/USDT"}
    assert required_spot <= symbols
    assert {"BTC/USDT:USDT", "ETH/USDT:USDT", "SOL/USDT:USDT"} <= symbols
    assert len(symbols) == len(listed)
    for perp in (i for i in listed if i.segment is Segment.FUTURES):
        assert Instrument(perp.base, perp.quote) in listed  # every perp has its spot pair


def test_exchange_id_is_sim() -> None:
    assert SimExchange(START).exchange_id == "sim"


def test_coverage_runs_from_start_to_end_of_last_complete_hour() -> None:
    exchange = SimExchange(datetime(2026, 1, 1, 5, 42, tzinfo=UTC))
    now = datetime(2026, 1, 3, 10, 37, 12, tzinfo=UTC)

    expected = (datetime(2026, 1, 1, 5, tzinfo=UTC), datetime(2026, 1, 3, 10, tzinfo=UTC))
    assert exchange.coverage(BTC, DataKind.TICKERS, now) == expected
    assert exchange.coverage(BTC, DataKind.KLINES, now) == expected
    assert exchange.coverage(BTC_PERP, DataKind.FUNDING, now) == expected


def test_coverage_end_includes_an_hour_that_ended_exactly_at_now() -> None:
    exchange = SimExchange(START)
    now = datetime(2026, 1, 2, 7, tzinfo=UTC)

    window = exchange.coverage(BTC, DataKind.TICKERS, now)

    assert window == (START, now)
    assert exchange.has_hour(BTC, DataKind.TICKERS, now - timedelta(hours=1), now)
    assert not exchange.has_hour(BTC, DataKind.TICKERS, now, now)


def test_coverage_is_none_for_missing_kind_unknown_instrument_or_no_complete_hour() -> None:
    exchange = SimExchange(START)
    now = datetime(2026, 2, 1, tzinfo=UTC)

    assert exchange.coverage(BTC, DataKind.FUNDING, now) is None
    assert exchange.coverage(Instrument.parse("FOO/USDT"), DataKind.TICKERS, now) is None
    assert exchange.coverage(BTC, DataKind.TICKERS, START + timedelta(minutes=59)) is None


def test_coverage_accepts_now_in_any_time_zone() -> None:
    exchange = SimExchange(START)
    now = datetime(2026, 1, 2, 12, 30, tzinfo=timezone(timedelta(hours=2)))

    assert exchange.coverage(BTC, DataKind.TICKERS, now) == (
        START,
        datetime(2026, 1, 2, 10, tzinfo=UTC),
    )


def test_has_hour_only_inside_coverage_and_only_for_listed_kinds() -> None:
    exchange = SimExchange(START)
    now = datetime(2026, 1, 10, 3, 15, tzinfo=UTC)
    last_complete = datetime(2026, 1, 10, 2, tzinfo=UTC)

    assert exchange.has_hour(BTC, DataKind.TICKERS, START, now)
    assert exchange.has_hour(BTC, DataKind.KLINES, last_complete, now)
    assert exchange.has_hour(BTC_PERP, DataKind.FUNDING, last_complete, now)
    assert not exchange.has_hour(BTC, DataKind.TICKERS, last_complete + timedelta(hours=1), now)
    assert not exchange.has_hour(BTC, DataKind.TICKERS, START - timedelta(hours=1), now)
    assert not exchange.has_hour(BTC, DataKind.FUNDING, START, now)
    assert not exchange.has_hour(Instrument.parse("FOO/USDT"), DataKind.TICKERS, START, now)
    assert not exchange.has_hour(BTC, DataKind.TICKERS, START + timedelta(minutes=30), now)


def test_generate_rejects_unlisted_instruments_and_kinds_with_key_error() -> None:
    exchange = SimExchange(START)

    with pytest.raises(KeyError):
        exchange.generate(Instrument.parse("FOO/USDT"), DataKind.TICKERS, START)
    with pytest.raises(KeyError):
        exchange.generate(BTC, DataKind.FUNDING, START)
    with pytest.raises(KeyError):
        exchange.generate(BTC, "trades", START)  # type: ignore[arg-type]


def test_generate_rejects_naive_misaligned_and_pre_epoch_hours() -> None:
    exchange = SimExchange(START)

    with pytest.raises(ValueError, match="aware"):
        exchange.generate(BTC, DataKind.TICKERS, datetime(2026, 1, 1))  # noqa: DTZ001
    with pytest.raises(ValueError, match="start of a UTC hour"):
        exchange.generate(BTC, DataKind.TICKERS, START + timedelta(minutes=1))
    with pytest.raises(ValueError, match="no data before"):
        exchange.generate(BTC, DataKind.TICKERS, datetime(2017, 6, 1, tzinfo=UTC))


def test_constructor_truncates_start_and_rejects_naive_or_pre_epoch() -> None:
    assert SimExchange(datetime(2026, 1, 1, 5, 59, tzinfo=UTC)).coverage_start == datetime(
        2026, 1, 1, 5, tzinfo=UTC
    )
    with pytest.raises(ValueError, match="aware"):
        SimExchange(datetime(2026, 1, 1))  # noqa: DTZ001
    with pytest.raises(ValueError, match="at or after"):
        SimExchange(datetime(2017, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("kind", list(DataKind))
def test_frames_have_the_shared_column_layout(kind: DataKind) -> None:
    frame = SimExchange(START).generate(BTC_PERP, kind, datetime(2026, 1, 5, 8, tzinfo=UTC))

    assert frame.kind is kind
    assert frame.hour == datetime(2026, 1, 5, 8, tzinfo=UTC)
    assert tuple(frame.columns) == COLUMNS_BY_KIND[kind]
    assert frame.columns["ts"].dtype == np.int64
    assert all(frame.columns[c].dtype == np.float64 for c in COLUMNS_BY_KIND[kind][1:])
    assert frame.rows > 0


def test_generation_is_identical_across_instances_and_request_order() -> None:
    hours = [START + timedelta(hours=h) for h in (0, 1, 97, 500, 5)]
    requests = [(i, k, h) for h in hours for i in (BTC, BTC_PERP, ADA) for k in DataKind]
    requests = [(i, k, h) for i, k, h in requests if not (k is DataKind.FUNDING and i != BTC_PERP)]
    first = SimExchange(START, seed=7)
    reference = {(i, k, h): first.generate(i, k, h) for i, k, h in requests}

    # A second exchange with another coverage start, asked in reverse order, far hour first.
    second = SimExchange(START + timedelta(days=3), seed=7)
    for i, k, h in reversed(requests):
        _assert_identical(second.generate(i, k, h), reference[(i, k, h)])
    for i, k, h in requests[:4]:
        _assert_identical(first.generate(i, k, h), reference[(i, k, h)])


def test_different_seeds_give_different_markets() -> None:
    hour = START + timedelta(hours=3)
    a = SimExchange(START, seed=1).generate(BTC, DataKind.TICKERS, hour)
    b = SimExchange(START, seed=2).generate(BTC, DataKind.TICKERS, hour)

    assert _digest(a) != _digest(b)


_CHILD = """
import hashlib, sys
from datetime import UTC, datetime
import numpy as np
from backtestd.domain.marketdata import DataKind, Instrument
from backtestd.marketdata.sim import SimExchange
exchange = SimExchange(datetime(2026, 1, 1, tzinfo=UTC), seed=7)
frame = exchange.generate(Instrument.parse(sys.argv[1]), DataKind(sys.argv[2]),
                          datetime.fromisoformat(sys.argv[3]))
h = hashlib.sha256()
for name, values in frame.columns.items():
    h.update(f"{name}:{values.dtype.str}:{values.shape}".encode())
    h.update(np.ascontiguousarray(values).tobytes())
sys.stdout.write(h.hexdigest())
"""


def test_generation_is_identical_in_a_fresh_process_with_another_hash_seed() -> None:
    hour = START + timedelta(hours=40)
    expected = _digest(SimExchange(START, seed=7).generate(ADA, DataKind.KLINES, hour))
    env = {**os.environ, "PYTHONHASHSEED": "12345"}

    child = subprocess.run(
        [sys.executable, "-c", _CHILD, ADA.symbol, "klines", hour.isoformat()],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=60,
    )

    assert child.stdout == expected


def test_one_ticker_hour_generates_well_under_50_ms() -> None:
    exchange = SimExchange(START)
    exchange.generate(BTC, DataKind.TICKERS, START)  # warm the hourly anchor cache
    durations = []
    for h in range(1, 13):
        began = time.perf_counter()
        exchange.generate(BTC, DataKind.TICKERS, START + timedelta(hours=h))
        durations.append(time.perf_counter() - began)

    assert float(np.median(durations)) < 0.05
