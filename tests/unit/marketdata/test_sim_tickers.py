"""Ticker frames of the sim exchange: quote invariants, continuity, activity and regimes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from backtestd.domain.marketdata import HOUR_MS, DataKind, HourFrame, Instrument, hour_ms
from backtestd.marketdata.sim import SimExchange

START = datetime(2026, 1, 1, tzinfo=UTC)
EXCHANGE = SimExchange(START)
BTC = Instrument.parse("BTC/USDT")
BTC_PERP = Instrument.parse("BTC/USDT:USDT")
ADA = Instrument.parse("ADA/USDT")


def _tickers(instrument: Instrument, hour: datetime) -> HourFrame:
    return EXCHANGE.generate(instrument, DataKind.TICKERS, hour)


@pytest.mark.parametrize("instrument", EXCHANGE.instruments(), ids=str)
def test_quotes_trades_and_timestamps_are_well_formed(instrument: Instrument) -> None:
    for hour in (START + timedelta(hours=h) for h in (0, 13, 200)):
        cols = _tickers(instrument, hour).columns
        ts, bid, ask, last = cols["ts"], cols["bid"], cols["ask"], cols["last"]
        start = hour_ms(hour)

        assert np.all(ask > bid)
        assert np.all(bid > 0)
        assert np.all(cols["bidSize"] > 0)
        assert np.all(cols["askSize"] > 0)
        assert np.all(cols["volume"] > 0)
        assert np.all((last == bid) | (last == ask))  # every trade prints at the touch
        assert np.all((ts >= start) & (ts < start + HOUR_MS))
        assert np.all(np.diff(ts) >= 0)


def test_price_is_continuous_across_hour_boundaries() -> None:
    for instrument in (BTC, BTC_PERP):
        frames = [_tickers(instrument, START + timedelta(hours=h)) for h in range(25)]
        for before, after in zip(frames, frames[1:], strict=False):
            jump = after.columns["last"][0] / before.columns["last"][-1] - 1
            assert abs(jump) < 0.003, (instrument, after.hour, jump)


def test_hour_boundary_jump_is_small_next_to_moves_over_an_hour() -> None:
    """A fresh hour continues the previous one rather than restarting from a new level."""
    frames = [_tickers(BTC, START + timedelta(hours=h)).columns for h in range(25)]
    hourly = [abs(np.log(f["last"][-1] / f["last"][0])) for f in frames]
    boundary = [
        abs(np.log(after["last"][0] / before["last"][-1]))
        for before, after in zip(frames, frames[1:], strict=False)
    ]

    assert np.median(boundary) < 0.2 * np.median(hourly)


def test_perpetual_tracks_its_spot_pair_with_a_small_basis() -> None:
    for h in range(0, 48, 6):
        hour = START + timedelta(hours=h)
        spot, perp = _tickers(BTC, hour).columns, _tickers(BTC_PERP, hour).columns
        spot_mid = (spot["bid"][-1] + spot["ask"][-1]) / 2
        perp_mid = (perp["bid"][-1] + perp["ask"][-1]) / 2
        gap_s = abs(int(spot["ts"][-1]) - int(perp["ts"][-1])) / 1000

        assert gap_s < 120
        assert abs(perp_mid / spot_mid - 1) < 0.004


def test_price_levels_are_plausible_for_each_asset() -> None:
    hour = START + timedelta(days=30)
    last = {i.symbol: float(_tickers(i, hour).columns["last"][-1]) for i in EXCHANGE.instruments()}

    assert 10_000 < last["BTC/USDT"] < 250_000
    assert 500 < last["ETH/USDT"] < 20_000
    assert 10 < last["SOL/USDT"] < 2_000
    for small in ("XRP/USDT", "ADA/USDT"):
        assert 0.01 < last[small] < 5
    assert last["BTC/USDT"] > last["ETH/USDT"] > last["SOL/USDT"] > last["XRP/USDT"]


def test_less_liquid_pairs_have_low_activity_and_empty_hours_while_btc_is_busy() -> None:
    ada_counts = np.array([_tickers(ADA, START + timedelta(hours=h)).rows for h in range(500)])
    btc_counts = np.array([_tickers(BTC, START + timedelta(hours=h)).rows for h in range(0, 96, 4)])

    low_share = float(np.mean(ada_counts < 60))
    assert 0.005 < low_share < 0.2
    assert np.any(ada_counts == 0)
    assert np.median(ada_counts) > 100
    assert np.median(btc_counts) > 1_000
    assert np.max(btc_counts) < 60_000


@pytest.fixture(scope="module")
def btc_month() -> list[tuple[int, int, float]]:
    """(hour of day, tick count, realised 1-minute volatility) for 30 days of BTC hours."""
    rows = []
    for h in range(30 * 24):
        hour = START + timedelta(hours=h)
        cols = _tickers(BTC, hour).columns
        mid = (cols["bid"] + cols["ask"]) / 2
        grid = hour_ms(hour) + np.arange(0, HOUR_MS, 60_000)
        sampled = mid[np.clip(np.searchsorted(cols["ts"], grid), 0, len(mid) - 1)]
        rows.append((hour.hour, len(mid), float(np.std(np.diff(np.log(sampled))))))
    return rows


def test_volatility_regimes_make_some_hours_much_calmer_than_others(
    btc_month: list[tuple[int, int, float]],
) -> None:
    vol = np.array([row[2] for row in btc_month])
    daily = vol.reshape(30, 24).mean(axis=1)

    assert np.percentile(vol, 90) > 2 * np.percentile(vol, 10)
    assert daily.max() > 1.8 * daily.min()  # whole days differ, not just single hours


def test_activity_follows_the_time_of_day(btc_month: list[tuple[int, int, float]]) -> None:
    busy = [count for hod, count, _ in btc_month if 13 <= hod <= 17]
    quiet = [count for hod, count, _ in btc_month if 1 <= hod <= 5]

    assert np.median(busy) > 1.5 * np.median(quiet)


def test_tick_arrivals_are_irregular_with_quiet_periods() -> None:
    cols = _tickers(BTC, START + timedelta(hours=14)).columns
    gaps = np.diff(cols["ts"])

    assert np.std(gaps) > 1.5 * np.mean(gaps)  # burstier than a Poisson stream (cv = 1)
    assert gaps.max() > 10_000
