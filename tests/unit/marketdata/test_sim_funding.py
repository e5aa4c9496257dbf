"""Funding frames of the sim exchange: settlement schedule, rate size and mark price."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from backtestd.domain.marketdata import DataKind, Instrument, Segment, hour_ms
from backtestd.marketdata.sim import SimExchange
from backtestd.marketdata.sim.anchors import anchor_model
from backtestd.marketdata.sim.clock import hour_index
from backtestd.marketdata.sim.universe import listing_for

START = datetime(2026, 1, 1, tzinfo=UTC)
EXCHANGE = SimExchange(START)
PERPS = [i for i in EXCHANGE.instruments() if i.segment is Segment.FUTURES]
BTC_PERP = Instrument.parse("BTC/USDT:USDT")


@pytest.mark.parametrize("perp", PERPS, ids=str)
def test_perpetuals_settle_exactly_at_00_08_16_utc(perp: Instrument) -> None:
    for h in range(48):
        hour = START + timedelta(hours=h)
        frame = EXCHANGE.generate(perp, DataKind.FUNDING, hour)

        if hour.hour in (0, 8, 16):
            assert frame.rows == 1
            assert int(frame.columns["ts"][0]) == hour_ms(hour)
        else:
            assert frame.rows == 0


def test_spot_pairs_have_no_funding() -> None:
    now = START + timedelta(days=2)
    for spot in (i for i in EXCHANGE.instruments() if i.segment is Segment.SPOT):
        assert EXCHANGE.coverage(spot, DataKind.FUNDING, now) is None
        with pytest.raises(KeyError):
            EXCHANGE.generate(spot, DataKind.FUNDING, START)


def _settlements(perp: Instrument, days: int) -> list[tuple[datetime, float, float]]:
    frames = [
        EXCHANGE.generate(perp, DataKind.FUNDING, START + timedelta(hours=h))
        for h in range(0, days * 24, 8)
    ]
    return [(f.hour, float(f.columns["rate"][0]), float(f.columns["markPrice"][0])) for f in frames]


def test_rates_are_small_mostly_positive_and_sometimes_negative() -> None:
    rates = np.array([rate for _, rate, _ in _settlements(BTC_PERP, 120)])

    assert np.all(np.abs(rates) < 0.003)
    assert 0 < np.mean(rates) < 3e-4
    assert 0.02 < np.mean(rates < 0) < 0.5


def test_rates_lean_with_the_trend_regime() -> None:
    model = anchor_model(EXCHANGE.seed)
    asset = listing_for(BTC_PERP).asset
    by_trend: dict[int, list[float]] = {-1: [], 0: [], 1: []}
    for hour, rate, _ in _settlements(BTC_PERP, 240):
        by_trend[model.drift(asset, hour_index(hour) - 1)].append(rate)

    assert np.mean(by_trend[1]) > np.mean(by_trend[0]) > np.mean(by_trend[-1])


def test_mark_price_is_near_the_perpetual_price_at_the_settlement() -> None:
    for hour, _, mark in _settlements(BTC_PERP, 5):
        first_mid = EXCHANGE.generate(BTC_PERP, DataKind.TICKERS, hour).columns
        mid = (first_mid["bid"][0] + first_mid["ask"][0]) / 2

        assert abs(mark / mid - 1) < 0.002
