"""The latent price path inside one hour, shared by every listing of an asset.

Between the anchors of hour ``h`` and ``h + 1`` the log price follows a Brownian bridge on a
100 ms grid, so the path ends exactly where the next hour's path starts. Volatility inside
the hour is not uniform: it follows the same bursty activity profile that drives tick
arrivals (busy 10-second buckets move more), which is the volume/volatility coupling seen
in real order flow. The spot pair and its perpetual sample this one path at their own tick
times, which is what keeps them tracking each other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from backtestd.domain.marketdata import HOUR_MS
from backtestd.marketdata.sim.rng import stream

GRID_MS = 100
GRID_STEPS = HOUR_MS // GRID_MS
BUCKET_MS = 10_000
BUCKETS = HOUR_MS // BUCKET_MS
_STEPS_PER_BUCKET = BUCKET_MS // GRID_MS
_BUCKETS_PER_MINUTE = 6

# Gamma shapes below 1 make activity bursty: many quiet buckets, a few very busy ones.
MINUTE_SHAPE = 1.2
BUCKET_SHAPE = 0.8
# Share of the hour's variance spread evenly, so a quiet bucket still moves a little.
VOL_FLOOR = 0.3


@dataclass(frozen=True)
class HourPath:
    """Latent state of one asset during one hour.

    ``log_price`` holds ``GRID_STEPS + 1`` grid values of ``log(price / ref_price)`` from the
    hour start to the next hour start inclusive. ``activity`` is the relative tick
    intensity of each 10-second bucket (mean 1). ``activity_shock`` is an N(0, 1) hourly
    shock to activity shared by every listing of the asset.
    """

    log_price: np.ndarray
    activity: np.ndarray
    activity_shock: float


def hour_path(seed: int, base: str, hour: int, start: float, end: float, sigma: float) -> HourPath:
    """Bridge from anchor ``start`` to anchor ``end`` with hourly log volatility ``sigma``."""
    rng = stream(seed, "path", base, hour)
    minutes = rng.gamma(MINUTE_SHAPE, 1.0 / MINUTE_SHAPE, HOUR_MS // 60_000)
    activity = np.repeat(minutes, _BUCKETS_PER_MINUTE) * rng.gamma(
        BUCKET_SHAPE, 1.0 / BUCKET_SHAPE, BUCKETS
    )
    activity /= activity.mean()
    weights = np.repeat(VOL_FLOOR + (1.0 - VOL_FLOOR) * activity, _STEPS_PER_BUCKET)
    variance = sigma**2 * weights / weights.sum()
    walk = np.concatenate(([0.0], np.cumsum(rng.standard_normal(GRID_STEPS) * np.sqrt(variance))))
    clock = np.concatenate(([0.0], np.cumsum(variance)))
    clock /= clock[-1]
    bridge = walk - clock * (walk[-1] - (end - start))
    log_price = start + bridge
    log_price[-1] = end  # exactly the next hour's first value, whatever the rounding above
    return HourPath(log_price, activity, float(rng.standard_normal()))
