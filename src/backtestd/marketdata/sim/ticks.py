"""Ticker rows of one listing during one hour: arrivals, quotes and trades.

Ticks arrive as a doubly stochastic Poisson process: an hourly intensity (median rate x
seasonality x activity regime x a log-normal hourly shock) spread over 10-second buckets
by the asset's bursty activity profile. Each tick samples the latent path, quotes a
spread around it on the price grid and records one trade at the touch.
"""

from __future__ import annotations

import math

import numpy as np

from backtestd.marketdata.sim.intrahour import BUCKET_MS, BUCKETS, GRID_MS, HourPath
from backtestd.marketdata.sim.rng import stream
from backtestd.marketdata.sim.universe import Listing

_SHARED_ACTIVITY = math.sqrt(0.5)  # weight of the asset-wide hourly activity shock
MAX_TICKS_PER_HOUR = 60_000.0  # intensity cap, keeps the worst hour within the time budget
_SPREAD_VOL_ELASTICITY = 0.8
_SPREAD_NOISE = 0.3
_TRADE_SIZE_DISPERSION = 1.2
_DEPTH_IN_TRADES = 12.0  # median touch size, in median trades
_DEPTH_DISPERSION = 0.9
_BUY_TILT = 0.25  # extra probability of a buy when the latent price is rising


def intensity(listing: Listing, activity_level: float, shared_shock: float, own: float) -> float:
    """Expected tick count of the hour."""
    shock = _SHARED_ACTIVITY * shared_shock + math.sqrt(1 - _SHARED_ACTIVITY**2) * own
    rate = listing.ticks_per_hour * activity_level * math.exp(listing.activity_dispersion * shock)
    return min(rate, MAX_TICKS_PER_HOUR)


def _arrivals(rng: np.random.Generator, rate: float, activity: np.ndarray) -> np.ndarray:
    """Sorted millisecond offsets within the hour, all in ``[0, HOUR_MS)``."""
    counts = rng.poisson(rate * activity / BUCKETS)
    buckets = np.repeat(np.arange(BUCKETS, dtype=np.int64), counts)
    offsets = buckets * BUCKET_MS + rng.integers(0, BUCKET_MS, size=len(buckets))
    offsets.sort()
    return offsets


def _lots(rng: np.random.Generator, median: np.ndarray, dispersion: float) -> np.ndarray:
    """Whole, positive lot counts around ``median`` (log-normal, so heavy-tailed)."""
    raw = median * np.exp(dispersion * rng.standard_normal(len(median)))
    return np.clip(np.rint(raw), 1.0, 2.0**32)  # sums stay exact below 2**53 lots


def simulate_tickers(
    seed: int,
    listing: Listing,
    hour: int,
    hour_ms: int,
    path: HourPath,
    log_price: np.ndarray,
    activity_level: float,
    vol_multiplier: float,
) -> dict[str, np.ndarray]:
    """Ticker columns (``TICKER_COLUMNS`` order) of ``listing`` for one hour.

    ``log_price`` is the latent grid this listing quotes around (the asset path, plus the
    basis for a perpetual); ``path`` supplies the shared activity profile.
    """
    rng = stream(seed, "ticks", listing.instrument.symbol, hour)
    outage = rng.random() < listing.outage_prob
    rate = intensity(listing, activity_level, path.activity_shock, float(rng.standard_normal()))
    offsets = _arrivals(rng, 0.0 if outage else rate, path.activity)
    n = len(offsets)

    cell, within = np.divmod(offsets, GRID_MS)
    left, right = log_price[cell], log_price[cell + 1]
    mid = listing.asset.ref_price * np.exp(left + (right - left) * (within / GRID_MS))

    scale = 10.0**listing.price_decimals
    half_spread = (
        mid
        * (listing.spread_bps * 1e-4 / 2)
        * vol_multiplier**_SPREAD_VOL_ELASTICITY
        * np.exp(_SPREAD_NOISE * rng.standard_normal(n))
    )
    bid_units = np.maximum(np.floor((mid - half_spread) * scale), 1.0)
    ask_units = np.maximum(np.ceil((mid + half_spread) * scale), bid_units + 1)
    bid, ask = bid_units / scale, ask_units / scale

    buy = rng.random(n) < 0.5 + _BUY_TILT * np.sign(right - left)
    lot = listing.lot_size
    trade_median = listing.trade_usd / (mid * lot)
    volume = _lots(rng, trade_median, _TRADE_SIZE_DISPERSION) * lot
    bid_size = _lots(rng, trade_median * _DEPTH_IN_TRADES, _DEPTH_DISPERSION) * lot
    ask_size = _lots(rng, trade_median * _DEPTH_IN_TRADES, _DEPTH_DISPERSION) * lot
    return {
        "ts": hour_ms + offsets,
        "bid": bid,
        "bidSize": bid_size,
        "ask": ask,
        "askSize": ask_size,
        "last": np.where(buy, ask, bid),
        "volume": volume,
    }
