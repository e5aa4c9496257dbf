"""Metric kernels against independent computations (statistics module, brute force, by hand)."""

from __future__ import annotations

import dataclasses
import doctest
import json
import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.api.schemas.backtests import ExecuteResults
from backtestd.domain.backtest_results import ExecuteResult
from backtestd.domain.sweeps import SweepMetrics
from backtestd.engine import metrics
from backtestd.engine.metrics import (
    DAY_MS,
    Metrics,
    cagr,
    compute_metrics,
    max_drawdown,
    periods_per_year,
    sharpe_ratio,
    simple_returns,
    sortino_ratio,
    sweep_metrics,
    win_rate,
)
from backtestd.engine.portfolio import (
    ExecutionMode,
    PortfolioConfig,
    PortfolioResult,
    simulate,
)

YEAR_MS = 365 * DAY_MS


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(metrics)
    assert outcome.failed == 0
    assert outcome.attempted > 0


def test_periods_per_year_counts_grid_steps_in_365_days() -> None:
    assert periods_per_year(60_000) == 365 * 24 * 60
    assert periods_per_year(DAY_MS) == 365.0


def test_simple_returns_skip_steps_from_non_positive_equity() -> None:
    eq = np.array([100.0, 50.0, -10.0, 0.0, 20.0, 30.0])
    # 100->50: -0.5; 50->-10: -1.2; from -10 and from 0: 0.0; 20->30: 0.5
    assert simple_returns(eq).tolist() == [-0.5, -1.2, 0.0, 0.0, 0.5]


def test_sharpe_matches_statistics_module() -> None:
    returns = [0.01, -0.02, 0.015, 0.0, 0.03]
    expected = statistics.mean(returns) / statistics.stdev(returns) * math.sqrt(252)
    assert sharpe_ratio(np.array(returns), 252.0) == pytest.approx(expected, rel=1e-12)


def test_sortino_uses_downside_deviation_over_all_returns() -> None:
    returns = [0.01, -0.02, 0.015, 0.0, 0.03]
    downside = math.sqrt((0.02**2) / 5)  # only -0.02 is below the 0 target; divide by all 5
    expected = statistics.mean(returns) / downside * math.sqrt(252)
    assert sortino_ratio(np.array(returns), 252.0) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "returns",
    [[], [0.05], [0.0, 0.0, 0.0], [0.01, 0.01, 0.01]],
)
def test_ratios_are_zero_without_dispersion(returns: list[float]) -> None:
    r = np.array(returns, dtype=np.float64)
    assert sharpe_ratio(r, 365.0) == 0.0
    assert sortino_ratio(r, 365.0) == 0.0


def test_sortino_is_zero_without_downside() -> None:
    assert sortino_ratio(np.array([0.01, 0.02, 0.0]), 365.0) == 0.0


@pytest.mark.parametrize(
    ("start", "end", "duration_ms", "expected"),
    [
        (100.0, 121.0, 2 * YEAR_MS, 0.1),  # sqrt(1.21) - 1
        (100.0, 110.0, YEAR_MS, 0.1),
        (100.0, 100.0, 30 * DAY_MS, 0.0),
        (100.0, 90.0, YEAR_MS // 2, 0.81 - 1.0),  # 0.9 ** 2 - 1
        (100.0, 105.0, DAY_MS - 1, 0.05),  # under a day: not annualised
        (100.0, 0.0, YEAR_MS, -1.0),
        (100.0, -5.0, YEAR_MS, -1.0),
        (100.0, 120.0, 0, 0.0),
    ],
)
def test_cagr(start: float, end: float, duration_ms: int, expected: float) -> None:
    assert cagr(start, end, duration_ms) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_cagr_of_extreme_growth_stays_finite() -> None:
    value = cagr(1.0, 1e6, DAY_MS)  # log growth 14 * 365 would overflow exp
    assert math.isfinite(value)
    assert value == pytest.approx(math.expm1(700.0))


def _brute_force_drawdown(eq: list[float]) -> tuple[float, float]:
    worst_abs = worst_pct = 0.0
    for j, value in enumerate(eq):
        for i in range(j + 1):
            peak = max(eq[: i + 1])
            if eq[i] == peak:
                worst_abs = max(worst_abs, peak - value)
                if peak > 0:
                    worst_pct = max(worst_pct, (peak - value) / peak * 100.0)
    return worst_abs, worst_pct


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.floats(min_value=0.01, max_value=1e6, allow_nan=False, allow_infinity=False),
        min_size=1,
        max_size=30,
    )
)
def test_max_drawdown_matches_brute_force(eq: list[float]) -> None:
    got = max_drawdown(np.array(eq))
    assert got == pytest.approx(_brute_force_drawdown(eq), rel=1e-12, abs=1e-12)


def test_max_drawdown_of_a_rising_curve_is_zero() -> None:
    assert max_drawdown(np.array([1.0, 2.0, 3.0])) == (0.0, 0.0)
    assert max_drawdown(np.array([], dtype=np.float64)) == (0.0, 0.0)


def test_win_rate_counts_only_strictly_positive_pnl() -> None:
    assert win_rate(np.array([1.0, 0.0, -1.0, 2.0, 3.0])) == 0.6
    assert win_rate(np.array([], dtype=np.float64)) == 0.0


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.floats(min_value=-1e3, max_value=1e9, allow_nan=False, allow_infinity=False),
        min_size=0,
        max_size=40,
    )
)
def test_risk_ratios_are_always_finite(eq: list[float]) -> None:
    r = simple_returns(np.array([100.0, *eq]))
    for value in (sharpe_ratio(r, 525_600.0), sortino_ratio(r, 525_600.0)):
        assert math.isfinite(value)


def test_compute_metrics_on_a_hand_worked_run() -> None:
    # Daily marks, so the daily equity that Sharpe/Sortino use is the grid equity itself.
    ts = np.array([0, 1, 2, 3, 4], dtype=np.int64) * DAY_MS
    result = simulate(
        ts[[1, 3]],
        np.array([1, -1], dtype=np.int8),
        np.array([10.0, 12.0]),
        ts,
        np.array([10.0, 10.0, 11.0, 12.0, 12.0]),
        from_ms=0,
        to_ms=5 * DAY_MS,
        grid_step_ms=DAY_MS,
        config=PortfolioConfig(buy_fee_rate=0.01, sell_fee_rate=0.01),
    )
    m = compute_metrics(result)
    # equity grid (see test_portfolio): 100, 100, 99, 108.9, 117.612, 117.612
    returns = [0.0, -0.01, 0.1, 0.08, 0.0]
    downside = math.sqrt(0.01**2 / 5)
    assert m.total_trades == 1
    assert m.win_rate == 1.0
    assert m.pnl_total == pytest.approx(17.612)
    assert m.pnl_total_percent == pytest.approx(17.612)
    assert m.max_drawdown == pytest.approx(1.0)
    assert m.max_drawdown_percent == pytest.approx(1.0)
    sharpe = statistics.mean(returns) / statistics.stdev(returns) * math.sqrt(365)
    assert m.sharpe_ratio == pytest.approx(sharpe, rel=1e-12)
    assert m.sortino_ratio == pytest.approx(
        statistics.mean(returns) / downside * math.sqrt(365), rel=1e-12
    )
    assert m.cagr == pytest.approx(1.17612 ** (365 / 5) - 1, rel=1e-12)


def test_a_run_of_at_most_one_day_has_zero_sharpe() -> None:
    """One daily return (or none) has no dispersion: Sharpe and Sortino are 0.0."""
    ts = np.array([0, 1_000, 2_000, 3_000, 4_000], dtype=np.int64)
    result = simulate(
        ts[[1, 3]],
        np.array([1, -1], dtype=np.int8),
        np.array([10.0, 12.0]),
        ts,
        np.array([10.0, 10.0, 11.0, 12.0, 12.0]),
        from_ms=0,
        to_ms=5_000,
        grid_step_ms=1_000,
        config=PortfolioConfig(buy_fee_rate=0.01, sell_fee_rate=0.01),
    )
    m = compute_metrics(result)
    # equity grid (see test_portfolio): 100, 100, 99, 108.9, 117.612, 117.612
    assert m.total_trades == 1
    assert m.win_rate == 1.0
    assert m.pnl_total == pytest.approx(17.612)
    assert m.pnl_total_percent == pytest.approx(17.612)
    assert m.max_drawdown == pytest.approx(1.0)
    assert m.max_drawdown_percent == pytest.approx(1.0)
    # One partial day holds one daily return: too few for Sharpe and Sortino.
    assert (m.sharpe_ratio, m.sortino_ratio) == (0.0, 0.0)
    assert m.cagr == pytest.approx(0.17612)  # a 5-second run is not annualised


def _hold_over_days(step_ms: int, day_closes: list[float]) -> PortfolioResult:
    """Buy 10 units at 10.0 at the start and hold for len(day_closes) days; day d trades at
    day_closes[d] throughout, marked on a grid of ``step_ms``."""
    days = len(day_closes)
    ts = np.arange(0, days * DAY_MS, step_ms, dtype=np.int64)
    px = np.array(day_closes)[ts // DAY_MS]
    return simulate(
        np.array([0], dtype=np.int64),
        np.array([1], dtype=np.int8),
        np.array([10.0]),
        ts,
        px,
        from_ms=0,
        to_ms=days * DAY_MS,
        grid_step_ms=step_ms,
        config=PortfolioConfig(buy_fee_rate=0.0, sell_fee_rate=0.0),
    )


def test_sharpe_and_sortino_come_from_daily_returns_whatever_the_cadence() -> None:
    closes = [10.5, 10.2, 10.9, 10.4, 11.3, 11.0]
    by_minute = compute_metrics(_hold_over_days(60_000, closes))
    by_hour = compute_metrics(_hold_over_days(3_600_000, closes))
    equity = [100.0 * c / 10.0 for c in [10.0, *closes]]
    returns = [b / a - 1 for a, b in zip(equity, equity[1:], strict=False)]
    sharpe = statistics.mean(returns) / statistics.stdev(returns) * math.sqrt(365)
    downside = math.sqrt(sum(min(r, 0.0) ** 2 for r in returns) / len(returns))
    for m in (by_minute, by_hour):
        assert m.sharpe_ratio == pytest.approx(sharpe, rel=1e-9)
        assert m.sortino_ratio == pytest.approx(
            statistics.mean(returns) / downside * math.sqrt(365), rel=1e-9
        )


def test_ruined_short_still_gives_finite_metrics() -> None:
    ts = np.array([0, 60_000, 120_000, 180_000], dtype=np.int64)
    result = simulate(
        np.array([0], dtype=np.int64),
        np.array([-1], dtype=np.int8),
        np.array([10.0]),
        ts,
        np.array([10.0, 25.0, 30.0, 35.0]),  # the short loses more than its collateral
        from_ms=0,
        to_ms=240_000,
        grid_step_ms=60_000,
        config=PortfolioConfig(mode=ExecutionMode.SHORT, buy_fee_rate=0.0, sell_fee_rate=0.0),
    )
    m = compute_metrics(result)
    assert result.final_equity == pytest.approx(200.0 - 10 * 35.0)
    assert m.cagr == -1.0
    assert m.max_drawdown == pytest.approx(250.0)
    assert m.max_drawdown_percent == pytest.approx(250.0)
    json.dumps(dataclasses.asdict(m), allow_nan=False)


def _metrics(trades: int) -> Metrics:
    return Metrics(1.5, 1.5, trades, 0.5, 1.2, 1.7, 0.3, 4.0, 3.5)


def _served(metrics: Metrics) -> dict[str, object]:
    result = ExecuteResult("strategy:u:s", metrics=metrics)
    served = ExecuteResults.of(result, None).model_dump(exclude_unset=True)
    return {
        k: v for k, v in served.items() if k not in {"strategyId", "instrument", "hostName", "iops"}
    }


def test_execute_serves_the_metrics_under_wire_names_and_only_with_trades() -> None:
    assert _served(_metrics(0)) == {}
    fields = _served(_metrics(2))
    assert fields == {
        "pnlTotal": 1.5,
        "pnlTotalPercent": 1.5,
        "totalTrades": 2,
        "winRate": 0.5,
        "sharpeRatio": 1.2,
        "sortinoRatio": 1.7,
        "cagr": 0.3,
        "maxDrawdown": 4.0,
        "maxDrawdownPercent": 3.5,
    }
    assert type(fields["totalTrades"]) is int


def test_sweep_metrics_carry_every_figure_even_without_trades() -> None:
    assert sweep_metrics(_metrics(0)) == SweepMetrics(
        sharpe=1.2,
        sortino=1.7,
        pnl=1.5,
        pnl_pct=1.5,
        cagr=0.3,
        max_dd_pct=3.5,
        trades=0,
        win_rate=0.5,
    )
