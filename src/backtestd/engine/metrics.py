"""Result metrics of one backtest, computed from a :class:`PortfolioResult`.

Every kernel returns a finite float. JSON cannot carry NaN or infinity, and a sweep has to
rank every row, so each degenerate case has a defined value (a flat equity gives a Sharpe of
0.0, for example). The formulas and their edge cases are in ``docs/metrics.md``. Risk metrics
use the equity marked to market on the regular grid, so a losing position that is still open
counts: the drawdown on every grid point, Sharpe and Sortino on the daily equity sampled from
it (annualised with sqrt(365), so the prepared cadence does not change them). The kernel
reads both in its one pass over the equity's changes (``engine/equity_runs.py``); the full
grid is never built for them. Trade metrics use the closed round trips.
:func:`compute_metrics` runs the compiled ``kernel_metrics``; the numpy functions here are the
readable formulas it is tested against.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from backtestd.domain.backtest_results import Metrics
from backtestd.domain.sweeps import SweepMetrics
from backtestd.engine.kernel_metrics import daily_equity, daily_ratios
from backtestd.engine.portfolio import DAY_MS, PortfolioResult

F64 = npt.NDArray[np.float64]

YEAR_DAYS = 365
# Below this per-period dispersion the returns count as constant (Sharpe/Sortino -> 0.0).
ZERO_DISPERSION = 1e-12
# exp(700) is about 1e304: the cap that keeps an absurd annualised growth finite.
MAX_LOG_GROWTH = 700.0


def periods_per_year(step_ms: int) -> float:
    """How many grid steps a 365-day year holds.

    >>> periods_per_year(60_000)
    525600.0
    """
    return YEAR_DAYS * DAY_MS / step_ms


def simple_returns(equity: F64) -> F64:
    """``e[i] / e[i-1] - 1`` for each step. A step from a non-positive equity returns 0.0.

    >>> simple_returns(np.array([100.0, 110.0, 99.0])).round(12).tolist()
    [0.1, -0.1]
    """
    prev = equity[:-1]
    out = np.zeros(prev.shape, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        np.divide(equity[1:] - prev, prev, out=out, where=prev > 0)
    return out


def daily_returns(result: PortfolioResult) -> F64:
    """Simple returns of a run's grid equity sampled once a day from ``from``
    (``docs/metrics.md``): the same bits as :func:`grid_daily_returns` of ``result.equity``,
    from the daily equity the kernel sampled in its pass.

    >>> from backtestd.engine.portfolio import simulate
    >>> ts = np.array([0, DAY_MS, 2 * DAY_MS], dtype=np.int64)
    >>> r = simulate(
    ...     ts[:2], np.array([1, -1], dtype=np.int8), np.array([10.0, 11.0]),
    ...     ts, np.array([10.0, 11.0, 12.0]), from_ms=0, to_ms=3 * DAY_MS, grid_step_ms=DAY_MS,
    ... )
    >>> daily_returns(r).round(4).tolist()
    [-0.001, 0.0989, 0.0]
    """
    return simple_returns(result.daily_equity)


def grid_daily_returns(equity: F64, grid_ts: npt.NDArray[np.int64]) -> F64:
    """:func:`daily_returns` of an equity given at every instant of a sorted grid.

    >>> grid = np.arange(0, 3 * DAY_MS + 1, DAY_MS // 2, dtype=np.int64)
    >>> grid_daily_returns(np.array([100.0, 1, 110, 1, 99, 1, 99]), grid).round(12).tolist()
    [0.1, -0.1, 0.0]
    """
    return simple_returns(daily_equity(equity, grid_ts, DAY_MS))


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def sharpe_ratio(returns: F64, periods: float) -> float:
    """Annualised Sharpe ratio with a zero risk-free rate: mean / sample std * sqrt(periods).

    Fewer than two returns, a standard deviation of at most ``ZERO_DISPERSION``, or a
    non-finite intermediate (returns overflowing float64) gives 0.0.

    >>> round(sharpe_ratio(np.array([0.01, -0.01, 0.02]), 4.0), 12)
    0.872871560944
    >>> sharpe_ratio(np.zeros(5), 365.0)
    0.0
    """
    if returns.shape[0] < 2:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        mean, std = float(np.mean(returns)), float(np.std(returns, ddof=1))
    if not (std > ZERO_DISPERSION and math.isfinite(std) and math.isfinite(mean)):
        return 0.0
    return _finite(mean / std * math.sqrt(periods))


def sortino_ratio(returns: F64, periods: float) -> float:
    """Annualised Sortino ratio: mean / downside deviation * sqrt(periods), target 0.

    The downside deviation is ``sqrt(mean(min(r, 0)**2))`` over all returns. Fewer than two
    returns, no downside above ``ZERO_DISPERSION``, or a non-finite intermediate gives 0.0.

    >>> round(sortino_ratio(np.array([0.01, -0.01, 0.02]), 4.0), 12)
    2.309401076759
    """
    if returns.shape[0] < 2:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        mean = float(np.mean(returns))
        downside = float(np.sqrt(np.mean(np.square(np.minimum(returns, 0.0)))))
    if not (downside > ZERO_DISPERSION and math.isfinite(downside) and math.isfinite(mean)):
        return 0.0
    return _finite(mean / downside * math.sqrt(periods))


def cagr(start_equity: float, end_equity: float, duration_ms: int) -> float:
    """Compound annual growth rate as a ratio (0.15 = 15 % a year), over a 365-day year.

    A run shorter than one day is not annualised: it reports its total return. An end
    equity at or below zero gives -1.0. The log growth is capped at ``MAX_LOG_GROWTH``
    so that the value stays finite.

    >>> round(cagr(100.0, 121.0, 2 * 365 * DAY_MS), 12)
    0.1
    >>> cagr(100.0, 150.0, 3_600_000)
    0.5
    """
    if start_equity <= 0 or duration_ms <= 0:
        return 0.0
    if end_equity <= 0:
        return -1.0
    ratio = end_equity / start_equity
    if duration_ms < DAY_MS:
        return _finite(ratio - 1.0)
    growth = math.log(ratio) * (YEAR_DAYS * DAY_MS / duration_ms)
    return math.expm1(min(growth, MAX_LOG_GROWTH))


def max_drawdown(equity: F64) -> tuple[float, float]:
    """Largest fall from a running peak: ``(absolute, percent of that peak)``, both >= 0.

    The two maxima are taken separately and may come from different falls.

    >>> max_drawdown(np.array([100.0, 120.0, 90.0, 130.0, 120.0]))
    (30.0, 25.0)
    """
    if equity.shape[0] == 0:
        return 0.0, 0.0
    peak = np.maximum.accumulate(equity)
    with np.errstate(over="ignore", invalid="ignore"):
        fall = peak - equity
        pct = np.zeros(fall.shape, dtype=np.float64)
        np.divide(fall, peak, out=pct, where=peak > 0)
    return _finite(float(np.max(fall))), _finite(float(np.max(pct)) * 100.0)


def win_rate(pnl: F64) -> float:
    """Fraction of trades with a net PnL above zero, 0.0 without trades.

    >>> win_rate(np.array([1.5, -0.5, 0.0, 2.0]))
    0.5
    """
    if pnl.shape[0] == 0:
        return 0.0
    return int(np.count_nonzero(pnl > 0.0)) / int(pnl.shape[0])


def compute_metrics(result: PortfolioResult) -> Metrics:
    """All metrics of one run.

    >>> from backtestd.engine.portfolio import PortfolioConfig, simulate
    >>> ts = np.array([0, 60_000, 120_000], dtype=np.int64)
    >>> r = simulate(
    ...     ts[:2], np.array([1, -1], dtype=np.int8), np.array([10.0, 11.0]),
    ...     ts, np.array([10.0, 11.0, 12.0]), from_ms=0, to_ms=180_000, grid_step_ms=60_000,
    ...     config=PortfolioConfig(buy_fee_rate=0.0, sell_fee_rate=0.0),
    ... )
    >>> m = compute_metrics(r)
    >>> m.pnl_total, m.pnl_total_percent, m.total_trades, m.win_rate, m.max_drawdown
    (10.0, 10.0, 1, 1.0, 0.0)
    """
    initial = result.config.initial_funding
    pnl_total = result.final_equity - initial
    sharpe, sortino = daily_ratios(result.daily_equity)
    return Metrics(
        pnl_total=_finite(pnl_total),
        pnl_total_percent=_finite(pnl_total / initial * 100.0),
        total_trades=result.trades.count,
        win_rate=win_rate(result.trades.pnl),
        sharpe_ratio=sharpe,
        sortino_ratio=sortino,
        cagr=cagr(initial, result.final_equity, result.to_ms - result.from_ms),
        max_drawdown=result.max_drawdown,
        max_drawdown_percent=result.max_drawdown_percent,
    )


def sweep_metrics(metrics: Metrics) -> SweepMetrics:
    """The metrics of one sweep trial (a leaderboard row's figures) from the run's metrics.

    >>> sweep_metrics(Metrics(5.0, 5.0, 2, 0.5, 1.2, 1.5, 0.3, 4.0, 3.5)).max_dd_pct
    3.5
    """
    return SweepMetrics(
        sharpe=metrics.sharpe_ratio,
        sortino=metrics.sortino_ratio,
        pnl=metrics.pnl_total,
        pnl_pct=metrics.pnl_total_percent,
        cagr=metrics.cagr,
        max_dd_pct=metrics.max_drawdown_percent,
        trades=metrics.total_trades,
        win_rate=metrics.win_rate,
    )
