"""Compiled risk metrics of one equity series: drawdown on the grid, Sharpe/Sortino on days.

A trial's drawdown and daily equity come from ``kernel.equity_pass`` (one pass over the
equity's changes), and its Sharpe and Sortino from :func:`daily_ratios`. The same metrics over
the full grid equity (:func:`equity_stats`, the readable form the tests hold to the numpy
formulas) and over its runs (:func:`run_stats`) give the same bits; they are the tests'
second forms, not used by a run.

Sharpe and Sortino use **daily** returns annualised with sqrt(365), whatever the cadence the
range was prepared at (``docs/metrics.md``), so the same strategy over the same days scores
the same at ``1m`` and at ``1h``. The daily equity is sampled from the grid equity at
``from + k * day`` (the last grid instant at or before it), and the last point is the run's
``to``. Sums are sequential, so results are bit-for-bit repeatable; they agree with the
numpy formulas in :mod:`backtestd.engine.metrics` to about 1e-13.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

ZERO_DISPERSION = 1e-12
YEAR_DAYS = 365.0


@numba.njit(cache=True, nogil=True)
def daily_equity(equity: F64, grid: I64, day_ms: int) -> F64:
    """Equity at ``from``, at each whole day after it strictly before ``to``, and at ``to``."""
    n = grid.shape[0]
    start = grid[0]
    days = (grid[n - 1] - start + day_ms - 1) // day_ms  # boundaries strictly before `to` + to
    out = np.empty(days + 1, dtype=np.float64)
    out[0] = equity[0]
    for k in range(1, days):
        # the last grid instant at or before the boundary (the grid is sorted, grid[0] = from)
        j = np.searchsorted(grid, start + k * day_ms, side="right") - 1
        out[k] = equity[j]
    out[days] = equity[n - 1]
    return out


@numba.njit(cache=True, nogil=True)
def _ratios(daily: F64) -> tuple[float, float]:
    n = daily.shape[0] - 1
    if n < 2:
        return 0.0, 0.0
    r = np.empty(n, dtype=np.float64)
    total = 0.0
    for i in range(n):
        prev = daily[i]
        r[i] = (daily[i + 1] - prev) / prev if prev > 0.0 else 0.0
        total += r[i]
    mean = total / n
    sq = 0.0
    down = 0.0
    for i in range(n):
        d = r[i] - mean
        sq += d * d
        m = min(r[i], 0.0)
        down += m * m
    std = math.sqrt(sq / (n - 1))
    dd = math.sqrt(down / n)
    ann = math.sqrt(YEAR_DAYS)
    sharpe = 0.0
    sortino = 0.0
    if std > ZERO_DISPERSION and math.isfinite(std) and math.isfinite(mean):
        sharpe = mean / std * ann
        if not math.isfinite(sharpe):
            sharpe = 0.0
    if dd > ZERO_DISPERSION and math.isfinite(dd) and math.isfinite(mean):
        sortino = mean / dd * ann
        if not math.isfinite(sortino):
            sortino = 0.0
    return sharpe, sortino


@numba.njit(cache=True, nogil=True)
def daily_ratios(daily: F64) -> tuple[float, float]:
    """``(sharpe, sortino)`` of a daily equity (:func:`daily_equity`)."""
    return _ratios(daily)


@numba.njit(cache=True, nogil=True)
def with_fall(peak: float, low: float, fall_max: float, pct_max: float) -> tuple[float, float]:
    """The drawdown maxima ``(largest fall, largest fall / peak)`` with the fall from ``peak`` to
    ``low`` counted (``low`` +inf: none). Rounding is monotone, so of the values after one peak
    only the lowest can raise either: ``kernel.equity_pass`` counts each peak's trough once,
    :func:`_drawdown` (a full grid's, the tests' second form) every value."""
    fall = peak - low
    if fall > fall_max:
        fall_max = fall
    if peak > 0.0:
        pct = fall / peak
        if pct > pct_max:
            pct_max = pct
    return fall_max, pct_max


@numba.njit(cache=True, nogil=True)
def _drawdown(equity: F64) -> tuple[float, float]:
    """``(max drawdown, max drawdown percent)`` of a sequence of equity values.

    Repeated values are skipped, so the grid equity and its runs (the same values, each once
    per run) give the same result.
    """
    peak = -np.inf
    fall_max = 0.0
    pct_max = 0.0
    prev = np.nan
    for i in range(equity.shape[0]):
        e = equity[i]
        if e == prev:
            continue  # the same value again: the same fall, no new maximum
        prev = e
        if e > peak:
            peak = e
            continue  # a new peak: no fall
        fall_max, pct_max = with_fall(peak, e, fall_max, pct_max)
    if not math.isfinite(fall_max):
        fall_max = 0.0
    pct_max = pct_max * 100.0
    if not math.isfinite(pct_max):
        pct_max = 0.0
    return fall_max, pct_max


@numba.njit(cache=True, nogil=True)
def equity_stats(equity: F64, grid: I64, day_ms: int) -> tuple[float, float, float, float]:
    """``(sharpe, sortino, max drawdown, max drawdown percent)`` of one grid equity."""
    sharpe, sortino = _ratios(daily_equity(equity, grid, day_ms))
    fall_max, pct_max = _drawdown(equity)
    return sharpe, sortino, fall_max, pct_max


@numba.njit(cache=True, nogil=True)
def daily_equity_runs(
    start: I64, value: F64, from_ms: int, to_ms: int, step_ms: int, day_ms: int
) -> F64:
    """:func:`daily_equity` of the runs of a grid equity (``engine/equity_runs.py``).

    The grid is ``from + k * step`` before ``to``, then ``to``, so the last instant at or
    before a day boundary ``from + k * day`` (which is before ``to``) has the index
    ``k * day // step``, and its value is that of the run holding that index.
    """
    days = (to_ms - from_ms + day_ms - 1) // day_ms
    out = np.empty(days + 1, dtype=np.float64)
    out[0] = value[0]
    for k in range(1, days):
        j = (k * day_ms) // step_ms
        out[k] = value[np.searchsorted(start, j, side="right") - 1]
    out[days] = value[value.shape[0] - 1]
    return out


@numba.njit(cache=True, nogil=True)
def run_stats(
    start: I64, value: F64, from_ms: int, to_ms: int, step_ms: int, day_ms: int
) -> tuple[float, float, float, float]:
    """:func:`equity_stats` of the runs of a grid equity: the same four floats, bit for bit,
    in time proportional to the number of runs instead of grid instants."""
    daily = daily_equity_runs(start, value, from_ms, to_ms, step_ms, day_ms)
    sharpe, sortino = _ratios(daily)
    fall_max, pct_max = _drawdown(value)
    return sharpe, sortino, fall_max, pct_max
