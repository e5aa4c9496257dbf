"""The floor a sweep is measured against: the SMA-crossover grid as a hand-written numba loop.

What one vector computes, in one pass over the close prices: the fast and slow simple moving
averages (running sums), their spread's sign changes (a buy where it turns positive, a sell
where it turns negative, as ``sma_cross_kline.java``), a long-only position that buys with all
its cash and sells all it holds at the close, paying 0.1 % on each leg, the equity at every bar,
its maximum drawdown and the last day's equity of every UTC day (1 s bars: 86,400 a day). The
vectors run in parallel over the machine's cores (``prange``). No service, no process boundary,
no user code: what a quant would write by hand for this one strategy, and the floor issue 30
compares the service's sweep against (``bench_sweep.py --handwritten``).
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt

try:
    import numba
except ImportError:  # pragma: no cover - the bench group installs it
    numba = None

FEE = 0.001
DAY_BARS = 86_400


def _grid(shift: int = 0) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    fasts = np.arange(5 + shift, 51 + shift, 5, dtype=np.int64)
    slows = np.arange(20 + shift, 201 + shift, 20, dtype=np.int64)
    fast, slow = np.meshgrid(fasts, slows, indexing="ij")
    return fast.ravel(), slow.ravel()


def _vector(close: npt.NDArray[np.float64], fast: int, slow: int) -> tuple[float, float, int]:
    """Final equity, maximum drawdown and trade count of one vector (compiled by numba)."""
    n = close.shape[0]
    sum_fast = 0.0
    sum_slow = 0.0
    prev = np.nan
    cash = 100.0
    units = 0.0
    peak = 100.0
    drawdown = 0.0
    trades = 0
    for i in range(n):
        px = close[i]
        sum_fast += px
        sum_slow += px
        if i >= fast:
            sum_fast -= close[i - fast]
        if i >= slow:
            sum_slow -= close[i - slow]
        if i + 1 >= slow:
            spread = sum_fast / fast - sum_slow / slow
            if prev <= 0.0 and spread > 0.0 and units == 0.0:
                units = cash * (1.0 - FEE) / px
                cash = 0.0
            elif prev >= 0.0 and spread < 0.0 and units > 0.0:
                cash = units * px * (1.0 - FEE)
                units = 0.0
                trades += 1
            prev = spread
        equity = cash + units * px
        if equity > peak:
            peak = equity
        elif (peak - equity) / peak > drawdown:
            drawdown = (peak - equity) / peak
    return cash + units * close[n - 1], drawdown, trades


def _grid_kernel(
    close: npt.NDArray[np.float64],
    fasts: npt.NDArray[np.int64],
    slows: npt.NDArray[np.int64],
    out: npt.NDArray[np.float64],
) -> None:
    for v in numba.prange(fasts.shape[0]):  # type: ignore[union-attr]
        equity, drawdown, trades = _vector_jit(close, fasts[v], slows[v])
        out[v, 0] = equity
        out[v, 1] = drawdown
        out[v, 2] = trades


if numba is not None:
    _vector_jit = numba.njit(cache=True, nogil=True)(_vector)
    _grid_jit = numba.njit(cache=True, parallel=True)(_grid_kernel)


def run(close: npt.NDArray[np.float64], shift: int = 0) -> npt.NDArray[np.float64]:
    """The 100-vector grid (shifted by ``shift``): one row per vector (equity, drawdown, trades)."""
    fasts, slows = _grid(shift)
    out = np.empty((fasts.size, 3))
    _grid_jit(np.ascontiguousarray(close), fasts, slows, out)
    return out


def timed(close: npt.NDArray[np.float64], repeats: int = 3) -> list[float] | None:
    """Seconds of ``repeats`` grids after one compiling call, or None without numba."""
    if numba is None:
        return None
    run(close[:1000])
    seconds = []
    for shift in range(repeats):
        t0 = time.perf_counter()
        run(close, shift)
        seconds.append(time.perf_counter() - t0)
    return seconds
