"""Building blocks of the sim model: keyed streams, regimes, anchors and the universe."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest

from backtestd.domain.marketdata import DataKind, Instrument
from backtestd.marketdata.sim import SimExchange
from backtestd.marketdata.sim.anchors import BLOCK_HOURS, AnchorModel, ar1, sticky_chain
from backtestd.marketdata.sim.clock import hour_index
from backtestd.marketdata.sim.rng import stream
from backtestd.marketdata.sim.universe import ASSETS, BTC, LISTINGS, Asset

YEAR_HOURS = 24 * 365


def test_streams_depend_only_on_seed_and_labels() -> None:
    a = stream(3, "ticks", "BTC/USDT", 10).random(4)

    assert np.array_equal(a, stream(3, "ticks", "BTC/USDT", 10).random(4))
    assert not np.array_equal(a, stream(3, "ticks", "BTC/USDT", 11).random(4))
    assert not np.array_equal(a, stream(4, "ticks", "BTC/USDT", 10).random(4))


def test_ar1_matches_the_plain_recursion() -> None:
    innovations = stream(0, "test").standard_normal(5_000)
    for decay in (0.5 ** (1 / 8), 0.5 ** (1 / 2160), 0.3):
        expected = [1.5]
        for shock in innovations:
            expected.append(decay * expected[-1] + shock)

        assert np.allclose(ar1(1.5, decay, innovations), expected, rtol=1e-9, atol=1e-9)


def test_sticky_chain_keeps_its_start_until_the_first_switch_and_then_persists() -> None:
    states = sticky_chain(stream(0, "chain"), 20_000, 2, 0.01, np.array([0.5, 0.5, 0.0]))
    runs = np.diff(np.flatnonzero(np.diff(states))).mean()

    assert states[0] == 2
    assert set(np.unique(states)) == {0, 1, 2}
    assert 2 not in set(states[np.argmax(states != 2) :])  # probability 0 once left
    assert runs > 50  # switches are rare and half of them redraw the same state


def test_anchors_do_not_depend_on_which_hour_was_asked_first() -> None:
    far = 3 * BLOCK_HOURS + 17
    jumped = AnchorModel(seed=5).log_price(BTC, far)
    walker = AnchorModel(seed=5)
    walked = [walker.log_price(BTC, h) for h in range(0, far + 1, 97)]

    assert walker.log_price(BTC, far) == jumped
    assert len(set(walked)) == len(walked)


def test_far_hours_are_cheap_to_reach() -> None:
    exchange = SimExchange(datetime(2026, 1, 1, tzinfo=UTC), seed=99)
    frame = exchange.generate(
        Instrument.parse("ETH/USDT"), DataKind.TICKERS, datetime(2031, 6, 1, tzinfo=UTC)
    )

    assert frame.rows > 0


def test_markets_have_volatility_and_trend_regimes() -> None:
    model = AnchorModel(seed=0)
    first = hour_index(datetime(2026, 1, 1, tzinfo=UTC))
    vol_states = [model.vol_state(h) for h in range(first, first + 30 * 24)]
    trends = np.array([model.drift(BTC, h) for h in range(first, first + YEAR_HOURS)])
    trend_runs = np.diff(np.flatnonzero(np.diff(trends)))

    assert set(vol_states) == {0, 1, 2}
    assert set(trends.tolist()) == {-1, 0, 1}
    assert np.median(trend_runs) > 24  # trends last days, not hours


@pytest.mark.parametrize("asset", ASSETS, ids=lambda a: a.base)
def test_long_run_prices_stay_in_a_plausible_band(asset: Asset) -> None:
    model = AnchorModel(seed=0)
    levels = np.array([model.log_price(asset, h) for h in range(0, 8 * YEAR_HOURS, 24)])

    assert np.all(np.abs(levels) < math.log(10))  # within 10x of the reference price
    assert np.std(levels) < 0.8


def test_lots_are_powers_of_two_worth_about_two_dollars() -> None:
    for listing in LISTINGS:
        exponent = math.log2(listing.lot_size)

        assert exponent == int(exponent)
        assert 0.5 < listing.lot_size * listing.asset.ref_price < 8


def test_golden_values_pin_the_model() -> None:
    """Stored sim hours are cached by the service, so any change to what an hour contains
    must be deliberate: update these values only together with a model version bump."""
    exchange = SimExchange(datetime(2026, 1, 1, tzinfo=UTC))
    hour = datetime(2026, 1, 2, 14, tzinfo=UTC)
    btc = exchange.generate(Instrument.parse("BTC/USDT"), DataKind.TICKERS, hour).columns
    funding = exchange.generate(
        Instrument.parse("BTC/USDT:USDT"), DataKind.FUNDING, hour.replace(hour=16)
    )

    observed = (
        len(btc["ts"]),
        int(btc["ts"][0]),
        float(btc["last"][-1]),
        float(funding.columns["rate"][0]),
    )
    assert observed == GOLDEN


GOLDEN = (4781, 1767362400084, 62453.43, 0.00019478)
