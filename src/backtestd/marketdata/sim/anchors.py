"""Hourly anchors: the regime-switching price process sampled at every hour start.

An anchor is the log price of an asset (relative to its reference price) at the start of
an hour. Anchors come from a mean-reverting log random walk whose volatility follows a
market-wide Markov regime (calm / normal / volatile) and whose drift follows a per-asset
Markov trend regime (down / flat / up). Perpetuals add a small basis on top.

Anchors need their past, so they are produced in blocks of :data:`BLOCK_HOURS` hours from
the fixed :data:`~backtestd.marketdata.sim.clock.EPOCH`, each block drawn from its own
keyed stream and vectorised, and cached per seed. Reaching any hour therefore costs one
vectorised pass per block up to it (a few milliseconds for a decade, once per process);
the content of a block never depends on which hour was asked for first.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass

import numpy as np

from backtestd.marketdata.sim.clock import HOURS_PER_YEAR, activity_season, vol_season
from backtestd.marketdata.sim.rng import stream
from backtestd.marketdata.sim.universe import Asset, Listing

BLOCK_HOURS = 4096

# Market volatility regime, one state per hour: calm, normal, volatile.
VOL_LEVELS = np.array([0.55, 1.0, 2.0])
ACTIVITY_LEVELS = np.array([0.65, 1.0, 1.9])
VOL_REGIME_PROBS = np.array([0.35, 0.5, 0.15])
VOL_SWITCH_PROB = 1.0 / 36.0
# Scales the levels so the long-run variance matches each asset's annual volatility.
_VOL_NORM = float(np.sqrt(np.sum(VOL_REGIME_PROBS * VOL_LEVELS**2)))

# Per-asset trend regime, one state per hour: down, flat, up (stored as -1, 0, 1).
DRIFT_PROBS = np.array([0.25, 0.5, 0.25])
DRIFT_SWITCH_PROB = 1.0 / 120.0
DRIFT_IN_SIGMAS = 0.07  # hourly drift of a trend, in units of the asset's hourly volatility

PRICE_HALF_LIFE_HOURS = 90 * 24  # reversion towards ref_price keeps levels plausible

# Perpetual basis: log(perp / spot), mean-reverting towards a trend-dependent target.
BASIS_HALF_LIFE_HOURS = 8.0
BASIS_PER_TREND = 3e-4
BASIS_NOISE = 2e-4  # stationary standard deviation of the noise part


def sticky_chain(
    rng: np.random.Generator, n: int, start: int, switch_prob: float, probs: np.ndarray
) -> np.ndarray:
    """``n`` states of a Markov chain that, each step, keeps its state or redraws it.

    A redraw comes from ``probs`` (so it may land on the same state). This form is chosen
    over a general transition matrix because it vectorises: the state at each step is the
    last redraw so far, found with a running maximum of redraw positions.
    """
    switches = rng.random(n) < switch_prob
    draws = rng.choice(len(probs), size=n, p=probs)
    positions = np.maximum.accumulate(np.where(switches, np.arange(n), -1))
    return np.where(positions >= 0, draws[np.maximum(positions, 0)], start).astype(np.int8)


def ar1(start: float, decay: float, innovations: np.ndarray) -> np.ndarray:
    """``x[0] = start``, ``x[t + 1] = decay * x[t] + innovations[t]``; returns ``n + 1`` values.

    Evaluated as scaled cumulative sums over chunks short enough that ``decay ** -chunk``
    stays small, which keeps the vectorised form numerically tame for any half-life.
    """
    n = len(innovations)
    out = np.empty(n + 1)
    out[0] = start
    chunk = max(1, int(math.log(1e3) / -math.log(decay)))
    for first in range(0, n, chunk):
        part = innovations[first : first + chunk]
        powers = decay ** np.arange(1, len(part) + 1)
        out[first + 1 : first + 1 + len(part)] = powers * (out[first] + np.cumsum(part / powers))
    return out


def vol_multiplier(states: np.ndarray, hours: np.ndarray) -> np.ndarray:
    """Hourly volatility relative to the long run: regime level times intraday season."""
    return VOL_LEVELS[states] / _VOL_NORM * vol_season(hours)


def hourly_sigma(asset: Asset) -> float:
    """Long-run hourly log volatility of ``asset``."""
    return asset.annual_vol / math.sqrt(HOURS_PER_YEAR)


@dataclass(frozen=True)
class _MarketBlock:
    vol_state: np.ndarray  # int8 regime per hour
    shocks: np.ndarray  # common N(0, 1) factor per hour


@dataclass(frozen=True)
class _AssetBlock:
    log_price: np.ndarray  # BLOCK_HOURS + 1 anchors; the last is the next block's first
    drift: np.ndarray  # int8 in {-1, 0, 1} per hour


class AnchorModel:
    """All hourly anchors of one seed, extended block by block on demand (thread-safe)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._lock = threading.RLock()
        self._market: list[_MarketBlock] = []
        self._assets: dict[str, list[_AssetBlock]] = {}
        self._basis: dict[str, list[np.ndarray]] = {}

    # -- market regime ---------------------------------------------------------------

    def vol_state(self, hour: int) -> int:
        block, offset = divmod(hour, BLOCK_HOURS)
        return int(self._market_block(block).vol_state[offset])

    def vol_multiplier(self, hour: int) -> float:
        """Hourly volatility relative to the long run (see :func:`vol_multiplier`)."""
        return float(vol_multiplier(np.array(self.vol_state(hour)), np.array(hour)))

    def activity_level(self, hour: int) -> float:
        """Tick intensity relative to a median hour: regime times intraday/weekly season."""
        level = ACTIVITY_LEVELS[self.vol_state(hour)]
        return float(level * activity_season(np.array(hour)))

    # -- asset prices ----------------------------------------------------------------

    def log_price(self, asset: Asset, hour: int) -> float:
        """Anchor at the start of ``hour``: ``log(price / asset.ref_price)``."""
        block, offset = divmod(hour, BLOCK_HOURS)
        return float(self._asset_block(asset, block).log_price[offset])

    def drift(self, asset: Asset, hour: int) -> int:
        block, offset = divmod(hour, BLOCK_HOURS)
        return int(self._asset_block(asset, block).drift[offset])

    def basis(self, listing: Listing, hour: int) -> float:
        """``log(perp / spot)`` at the start of ``hour``; zero for spot listings."""
        if not listing.is_perpetual:
            return 0.0
        block, offset = divmod(hour, BLOCK_HOURS)
        return float(self._basis_block(listing, block)[offset])

    # -- block construction ----------------------------------------------------------

    def _market_block(self, block: int) -> _MarketBlock:
        with self._lock:
            blocks = self._market
            while len(blocks) <= block:
                index = len(blocks)
                start = (
                    int(blocks[-1].vol_state[-1])
                    if blocks
                    else int(stream(self.seed, "market", "init").choice(3, p=VOL_REGIME_PROBS))
                )
                rng = stream(self.seed, "market", "block", index)
                states = sticky_chain(rng, BLOCK_HOURS, start, VOL_SWITCH_PROB, VOL_REGIME_PROBS)
                blocks.append(_MarketBlock(states, rng.standard_normal(BLOCK_HOURS)))
            return blocks[block]

    def _asset_block(self, asset: Asset, block: int) -> _AssetBlock:
        with self._lock:
            blocks = self._assets.setdefault(asset.base, [])
            sigma = hourly_sigma(asset)
            decay = 0.5 ** (1.0 / PRICE_HALF_LIFE_HOURS)
            while len(blocks) <= block:
                index = len(blocks)
                if blocks:
                    start_price, start_drift = float(blocks[-1].log_price[-1]), blocks[-1].drift[-1]
                else:
                    init = stream(self.seed, "asset", asset.base, "init")
                    start_price = float(init.standard_normal()) * sigma / math.sqrt(1 - decay**2)
                    start_drift = init.choice(3, p=DRIFT_PROBS) - 1
                market = self._market_block(index)
                rng = stream(self.seed, "asset", asset.base, "block", index)
                states = sticky_chain(
                    rng, BLOCK_HOURS, int(start_drift) + 1, DRIFT_SWITCH_PROB, DRIFT_PROBS
                )
                drift = (states - 1).astype(np.int8)
                rho = asset.market_corr
                shocks = rho * market.shocks + math.sqrt(1 - rho**2) * rng.standard_normal(
                    BLOCK_HOURS
                )
                hours = np.arange(index * BLOCK_HOURS, (index + 1) * BLOCK_HOURS)
                vol = vol_multiplier(market.vol_state, hours)
                returns = sigma * (DRIFT_IN_SIGMAS * drift + vol * shocks)
                blocks.append(_AssetBlock(ar1(start_price, decay, returns), drift))
            return blocks[block]

    def _basis_block(self, listing: Listing, block: int) -> np.ndarray:
        with self._lock:
            symbol = listing.instrument.symbol
            blocks = self._basis.setdefault(symbol, [])
            decay = 0.5 ** (1.0 / BASIS_HALF_LIFE_HOURS)
            while len(blocks) <= block:
                index = len(blocks)
                start = float(blocks[-1][-1]) if blocks else 0.0
                rng = stream(self.seed, "basis", symbol, "block", index)
                target = BASIS_PER_TREND * self._asset_block(listing.asset, index).drift
                noise = BASIS_NOISE * math.sqrt(1 - decay**2) * rng.standard_normal(BLOCK_HOURS)
                blocks.append(ar1(start, decay, (1 - decay) * target + noise))
            return blocks[block]


@functools.lru_cache(maxsize=16)
def anchor_model(seed: int) -> AnchorModel:
    """The shared anchor cache of ``seed``; sharing is safe because anchors are pure."""
    return AnchorModel(seed)
