"""Kline frames of the sim exchange are exactly the 1-second bars of its ticker frames."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from backtestd.domain.marketdata import HOUR_MS, DataKind, HourFrame, Instrument, hour_ms
from backtestd.marketdata.sim import SimExchange, hour_stats, klines_from_tickers

START = datetime(2026, 1, 1, tzinfo=UTC)
EXCHANGE = SimExchange(START)
ADA = Instrument.parse("ADA/USDT")


def _bars_in_plain_python(
    tickers: HourFrame,
) -> list[tuple[int, float, float, float, float, float]]:
    """Independent reference: group ticks by second with dicts and builtins only."""
    ts = [int(v) for v in tickers.columns["ts"]]
    price = [float(v) for v in tickers.columns["last"]]
    size = [float(v) for v in tickers.columns["volume"]]
    seconds: dict[int, list[int]] = {}
    for row, stamp in enumerate(ts):
        seconds.setdefault(stamp // 1000, []).append(row)
    bars = []
    for second in sorted(seconds):
        rows = seconds[second]
        prices = [price[r] for r in rows]
        bars.append(
            (
                second * 1000,
                prices[0],
                max(prices),
                min(prices),
                prices[-1],
                sum(size[r] for r in rows),
            )
        )
    return bars


def _bars_of(frame: HourFrame) -> list[tuple[int, float, float, float, float, float]]:
    c = frame.columns
    columns = (c["ts"], c["open"], c["high"], c["low"], c["close"], c["volume"])
    return [
        (int(t), float(o), float(h), float(low), float(cl), float(v))
        for t, o, h, low, cl, v in zip(*columns, strict=True)
    ]


@pytest.mark.parametrize(
    ("symbol", "hours"),
    [
        ("BTC/USDT", (0, 14, 333)),
        ("BTC/USDT:USDT", (8, 15)),
        ("ADA/USDT", (3, 77)),
        ("LINK/USDT", (5,)),
    ],
)
def test_klines_equal_an_independent_recomputation_from_tickers(
    symbol: str, hours: tuple[int, ...]
) -> None:
    instrument = Instrument.parse(symbol)
    for h in hours:
        hour = START + timedelta(hours=h)
        tickers = EXCHANGE.generate(instrument, DataKind.TICKERS, hour)
        klines = EXCHANGE.generate(instrument, DataKind.KLINES, hour)

        assert tickers.rows > 0
        assert _bars_of(klines) == _bars_in_plain_python(tickers)  # exact, volumes included


def test_klines_of_an_empty_hour_are_empty() -> None:
    empty_hour = next(
        START + timedelta(hours=h)
        for h in range(2_000)
        if EXCHANGE.generate(ADA, DataKind.TICKERS, START + timedelta(hours=h)).rows == 0
    )

    assert EXCHANGE.generate(ADA, DataKind.KLINES, empty_hour).rows == 0


def test_kline_bars_are_whole_seconds_inside_the_hour_with_consistent_ohlc() -> None:
    hour = START + timedelta(hours=15)
    c = EXCHANGE.generate(Instrument.parse("ETH/USDT"), DataKind.KLINES, hour).columns
    start = hour_ms(hour)

    assert np.all(c["ts"] % 1000 == 0)
    assert np.all((c["ts"] >= start) & (c["ts"] < start + HOUR_MS))
    assert np.all(np.diff(c["ts"]) > 0)
    assert np.all(c["low"] <= np.minimum(c["open"], c["close"]))
    assert np.all(c["high"] >= np.maximum(c["open"], c["close"]))
    assert np.all(c["volume"] > 0)


def test_hour_volume_is_the_same_from_klines_and_tickers() -> None:
    hour = START + timedelta(hours=20)
    tickers = EXCHANGE.generate(Instrument.parse("SOL/USDT"), DataKind.TICKERS, hour)
    klines = klines_from_tickers(tickers)

    assert math.fsum(klines.columns["volume"]) == math.fsum(tickers.columns["volume"])
    assert hour_stats(klines)[0] == hour_stats(tickers)[0] == tickers.columns["last"][-1]


def test_klines_from_tickers_rejects_other_kinds() -> None:
    funding = HourFrame.empty(DataKind.FUNDING, START)

    with pytest.raises(ValueError, match="tickers"):
        klines_from_tickers(funding)
