"""Seeded input columns for engine-host tests (``write_columns`` writes them for a run)."""

from __future__ import annotations

import numpy as np

T0 = 1_700_000_000_000  # the first row's time, epoch ms


def bars(n: int, seed: int = 11, gaps: bool = False) -> dict[str, np.ndarray]:
    """``n`` one-second klines of a random walk, one a second, or with ``gaps`` one every 1-3
    seconds (as real 1 s data has a bar only in the seconds that traded)."""
    rng = np.random.default_rng(seed)
    close = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.001, n)))
    opens = np.concatenate([[close[0]], close[:-1]])
    high = np.maximum(opens, close) * (1 + rng.uniform(0, 1e-3, n))
    low = np.minimum(opens, close) * (1 - rng.uniform(0, 1e-3, n))
    volume = rng.uniform(0.0, 3.0, n)
    seconds = np.cumsum(rng.integers(1, 4, n)) if gaps else np.arange(n)
    ts = T0 + seconds.astype(np.int64) * 1000
    return {
        "ts": ts,
        "closeTs": ts + 999,
        "open": opens,
        "high": high,
        "low": low,
        "close": close,
        "volume": volume,
    }


def ticks_with_gaps(n: int) -> dict[str, np.ndarray]:
    """``n`` ticks a second apart whose last price is missing (NaN) now and then, and before
    the seventh, and whose bid is missing now and then."""
    rng = np.random.default_rng(5)
    last = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.001, n)))
    bid = last - 0.01
    last[rng.random(n) < 0.1] = np.nan
    last[:7] = np.nan  # before the first price, a held node has nothing to hold
    bid[rng.random(n) < 0.05] = np.nan
    return {
        "ts": T0 + np.arange(n, dtype=np.int64) * 1000,
        "bid": bid,
        "bidSize": rng.uniform(0.1, 2.0, n),
        "ask": last + 0.01,
        "askSize": rng.uniform(0.1, 2.0, n),
        "last": last,
        "volume": rng.uniform(0.0, 5.0, n),
    }
