"""The compiled kernel against the Python loop it replaced, and the metric conventions.

``reference_portfolio.simulate`` is the pre-compilation implementation; the kernel must give
the same bits on random signal sequences in every mode and fee configuration. The metrics
compiled in ``kernel_metrics`` are held to the numpy formulas of ``metrics`` (which in turn are
held to the ``statistics`` module in ``test_metrics.py``).
"""

from __future__ import annotations

import math
import statistics

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.unit.engine import reference_portfolio
from tests.unit.engine.portfolio_configs import portfolio_configs

from backtestd.domain.sweeps import SweepMetrics
from backtestd.engine.kernel import floor_quotient, new_instants
from backtestd.engine.kernel_metrics import equity_stats
from backtestd.engine.metrics import (
    DAY_MS,
    compute_metrics,
    grid_daily_returns,
    max_drawdown,
    sharpe_ratio,
    sortino_ratio,
    sweep_metrics,
)
from backtestd.engine.portfolio import (
    PortfolioConfig,
    PortfolioResult,
    simulate,
    trigger_prices,
)
from backtestd.engine.prefetch import prefetch

prices = st.sampled_from([8.0, 9.5, 10.0, 10.1, 11.0, 12.5, 13.0, 0.37, 1234.5])


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, np.ndarray], int, int, PortfolioConfig]:
    n_marks = draw(st.integers(0, 60))
    n_sigs = draw(st.integers(0, 30))

    def column(elements: st.SearchStrategy[float], n: int, dtype: type) -> np.ndarray:
        return np.array(draw(st.lists(elements, min_size=n, max_size=n)), dtype=dtype)

    instants = st.integers(-3, 40).map(lambda k: k * 250)
    arrays = {
        "sig_ts": np.sort(column(instants, n_sigs, np.int64)),
        "sig_side": column(st.sampled_from([1, -1]), n_sigs, np.int8),
        "sig_price": column(prices, n_sigs, np.float64),
        "px_ts": np.sort(column(instants, n_marks, np.int64)),
        "px": column(prices, n_marks, np.float64),
    }
    step = draw(st.sampled_from([250, 1_000, 3_000, 7]))
    # the grid starts where the range does: at 0, or at a real epoch millisecond
    origin = draw(st.sampled_from([0, 1_767_225_600_123]))
    arrays["sig_ts"] += origin
    arrays["px_ts"] += origin
    cfg = draw(portfolio_configs)
    return arrays, step, origin, cfg


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_kernel_gives_the_same_bits_as_the_python_loop(
    case: tuple[dict[str, np.ndarray], int, int, PortfolioConfig],
) -> None:
    arrays, step, origin, cfg = case
    span = {"from_ms": origin, "to_ms": origin + 9_000, "grid_step_ms": step}
    got = simulate(**arrays, **span, config=cfg)
    ref = reference_portfolio.simulate(**arrays, **span, config=cfg)
    for name in ref.trades.__dataclass_fields__:
        assert _same(getattr(got.trades, name), getattr(ref.trades, name)), name
    assert _same(got.equity_ts, ref.equity_ts)
    assert _same(got.equity, ref.equity)
    assert got.final_equity == ref.final_equity
    assert got.ignored_signals == ref.ignored_signals


@settings(max_examples=300, deadline=None)
@given(
    eq=st.lists(st.floats(-50.0, 500.0, allow_nan=False), min_size=1, max_size=80),
    step=st.sampled_from([DAY_MS // 4, DAY_MS // 3, DAY_MS, 7 * 3_600_000]),
)
def test_compiled_risk_metrics_match_the_numpy_formulas(eq: list[float], step: int) -> None:
    equity = np.array([100.0, *eq])
    grid = np.arange(equity.shape[0], dtype=np.int64) * step
    sharpe, sortino, dd, dd_pct = equity_stats(equity, grid, DAY_MS)
    r = grid_daily_returns(equity, grid)
    assert sharpe == pytest.approx(sharpe_ratio(r, 365.0), rel=1e-12, abs=1e-12)
    assert sortino == pytest.approx(sortino_ratio(r, 365.0), rel=1e-12, abs=1e-12)
    assert (dd, dd_pct) == pytest.approx(max_drawdown(equity), rel=1e-12, abs=1e-12)


def _daily_by_hand(equity: list[float], step: int) -> list[float]:
    """Equity at from + k days (last grid instant at or before it) and at the end."""
    n_days = math.ceil((len(equity) - 1) * step / DAY_MS)
    out = [equity[0]]
    for k in range(1, n_days):
        out.append(equity[(k * DAY_MS) // step])
    return [*out, equity[-1]]


def test_daily_sampling_by_hand() -> None:
    step = 6 * 3_600_000
    equity = [100.0, 101, 102, 103, 104, 90, 91, 92, 110, 111]  # 2.25 days
    grid = np.arange(len(equity), dtype=np.int64) * step
    r = grid_daily_returns(np.array(equity), grid).tolist()
    d = _daily_by_hand(equity, step)
    assert d == [100.0, 104.0, 110.0, 111.0]
    assert r == pytest.approx([d[i + 1] / d[i] - 1 for i in range(3)], rel=1e-15)


def _sma_crossover_run(step_ms: int) -> PortfolioResult:
    """A deterministic long-only run over 10 days of 1-minute prices, marked at ``step_ms``.

    Trades happen exactly on hour boundaries so the 1m and 1h preparations see the same fills;
    only the density of the equity grid differs.
    """
    rng = np.random.default_rng(7)
    minutes = 10 * 24 * 60
    ts_1m = np.arange(minutes, dtype=np.int64) * 60_000
    px_1m = 100.0 * np.exp(np.cumsum(rng.normal(0, 5e-4, minutes)))
    hours = np.arange(0, minutes, 60)
    sides = np.where(rng.random(hours.shape[0]) < 0.5, 1, -1).astype(np.int8)
    keep = ts_1m if step_ms == 60_000 else ts_1m[::60]
    keep_px = px_1m if step_ms == 60_000 else px_1m[::60]
    return simulate(
        ts_1m[hours], sides, px_1m[hours], keep, keep_px,
        from_ms=0, to_ms=minutes * 60_000, grid_step_ms=step_ms,
    )  # fmt: skip


def test_sharpe_does_not_depend_on_the_cadence() -> None:
    at_1m = _sma_crossover_run(60_000)
    at_1h = _sma_crossover_run(3_600_000)
    assert at_1m.trades.pnl.tolist() == at_1h.trades.pnl.tolist()
    m1, m60 = compute_metrics(at_1m), compute_metrics(at_1h)
    assert m1.total_trades > 10
    # The daily equity differs only by open positions marked at slightly different prices.
    assert m1.sharpe_ratio == pytest.approx(m60.sharpe_ratio, rel=0.05)
    assert m1.sortino_ratio == pytest.approx(m60.sortino_ratio, rel=0.05)
    d1 = grid_daily_returns(at_1m.equity, at_1m.equity_ts)
    expected = statistics.mean(d1) / statistics.stdev(d1) * math.sqrt(365)
    assert m1.sharpe_ratio == pytest.approx(expected, rel=1e-12)


def test_same_daily_equity_gives_the_same_sharpe_at_any_cadence() -> None:
    days = [100.0, 103.0, 99.0, 104.0, 108.0, 101.0]
    for step in (60_000, 3_600_000, DAY_MS // 2):
        per_day = DAY_MS // step
        equity = np.repeat(np.array(days[:-1]), per_day)
        equity = np.append(equity, days[-1])
        grid = np.arange(equity.shape[0], dtype=np.int64) * step
        sharpe, sortino, _, _ = equity_stats(equity, grid, DAY_MS)
        r = [days[i + 1] / days[i] - 1 for i in range(len(days) - 1)]
        assert sharpe == pytest.approx(statistics.mean(r) / statistics.stdev(r) * math.sqrt(365))
        down = math.sqrt(sum(min(x, 0.0) ** 2 for x in r) / len(r))
        assert sortino == pytest.approx(statistics.mean(r) / down * math.sqrt(365))


def test_a_run_without_trades_has_a_complete_zero_record() -> None:
    ts = np.arange(5, dtype=np.int64) * DAY_MS
    result = simulate(
        np.array([0], dtype=np.int64),
        np.array([-1], dtype=np.int8),
        np.array([10.0]),
        ts,
        np.array([10.0, 11.0, 9.0, 12.0, 10.0]),
        from_ms=0,
        to_ms=5 * DAY_MS,
        grid_step_ms=DAY_MS,
    )  # fmt: skip  (a sell with nothing held is ignored in LONG mode)
    m = compute_metrics(result)
    assert result.ignored_signals == 1
    assert sweep_metrics(m) == SweepMetrics(
        sharpe=0.0, sortino=0.0, pnl=0.0, pnl_pct=0.0, cagr=0.0,
        max_dd_pct=0.0, trades=0, win_rate=0.0,
    )  # fmt: skip
    assert m.max_drawdown == 0.0
    assert m.total_trades == 0  # so execute's results carry no yield metric


def test_ticker_signals_fill_at_the_triggering_tick_not_the_stale_close() -> None:
    """A rising market: the window of [0, 60 s) closes at 100.0 but the next tick, which
    emits the buy, comes 6 s later at 103.0; the exit window is emitted at 121 s at 101.0
    after closing at 110.0. The stale fills would show a 10 % gain the market never gave."""
    px_ts = np.array([0, 59_000, 65_000, 119_000, 121_000], dtype=np.int64)
    px = np.array([99.0, 100.0, 103.0, 110.0, 101.0])
    sig_ts = np.array([65_000, 121_000], dtype=np.int64)
    stale = np.array([100.0, 110.0])  # the watched price at each closed window
    sides = np.array([1, -1], dtype=np.int8)
    fill = trigger_prices(sig_ts, stale, px_ts, px)
    assert fill.tolist() == [103.0, 101.0]
    span = {"from_ms": 0, "to_ms": 180_000, "grid_step_ms": 60_000}
    no_fee = PortfolioConfig(buy_fee_rate=0.0, sell_fee_rate=0.0)
    at_stale = simulate(sig_ts, sides, stale, px_ts, px, **span, config=no_fee)
    at_tick = simulate(sig_ts, sides, fill, px_ts, px, **span, config=no_fee)
    assert at_stale.final_equity == pytest.approx(110.0)
    assert at_tick.final_equity == pytest.approx(100.0 * 101.0 / 103.0)
    assert at_tick.trades.entry_price.tolist() == [103.0]


def test_trigger_prices_keep_the_signal_price_without_a_tick_at_its_millisecond() -> None:
    got = trigger_prices(
        np.array([1, 7, 9], dtype=np.int64),
        np.array([1.0, 2.0, 3.0]),
        np.array([1, 1, 8], dtype=np.int64),
        np.array([5.0, 6.0, 7.0]),
    )
    assert got.tolist() == [5.0, 2.0, 3.0]  # the first tick of the millisecond wins


@settings(max_examples=2_000, deadline=None)
@given(
    d=st.one_of(
        st.integers(0, 2**63 - 1),
        st.integers(0, 2**53),
        st.integers(2**52 - 2**20, 2**52 + 2**20),
    ),
    step=st.one_of(st.integers(1, 2**40), st.sampled_from([1, 250, 999, 1_000, 60_000, DAY_MS])),
)
def test_the_grid_index_estimate_is_the_floor_quotient(d: int, step: int) -> None:
    """The equity pass finds an instant by a multiplication corrected by compares."""
    assert floor_quotient(d, step, 1.0 / step) == d // step


@pytest.mark.parametrize("step", [1, 3, 7, 1_000, 86_399_999])
def test_the_grid_index_estimate_is_exact_at_every_multiple_edge(step: int) -> None:
    for q in (0, 1, 2, 10**6, 2**52 // step - 1, 2**52 // step, 2**52 // step + 1):
        for d in (q * step - 1, q * step, q * step + 1):
            if d >= 0:
                assert floor_quotient(d, step, 1.0 / step) == d // step


@pytest.mark.parametrize("step", [2**40 + 1, 2**36 - 5, 999_999_937])
def test_the_grid_index_estimate_is_exact_just_below_its_limit(step: int) -> None:
    """Where the estimate may round up to the next quotient (d within a step of 2**52)."""
    top = 2**52
    for d in range(top - step, top, max(1, step // 997)):
        for e in (d, (d // step + 1) * step - 1):
            assert floor_quotient(e, step, 1.0 / step) == e // step


def test_new_instants_flag_each_mark_that_starts_a_grid_instant_by_hand() -> None:
    """Grid step 1 s from 10,000 ms: marks in [10,000, 11,000) share instant 0, and so on."""
    m_ts = np.array([10_000, 10_999, 11_000, 12_500, 12_501, 13_999, 20_000], dtype=np.int64)
    assert new_instants(m_ts, 10_000, 1_000).tolist() == [1, 0, 1, 1, 0, 1, 1]
    assert new_instants(np.zeros(0, dtype=np.int64), 0, 1_000).tolist() == []


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.integers(0, 5_000), min_size=1, max_size=200),
    step=st.sampled_from([1, 7, 250, 1_000, 60_000]),
    origin=st.sampled_from([0, 1_767_225_600_123]),
)
def test_new_instants_are_where_the_floor_quotient_changes(
    gaps: list[int], step: int, origin: int
) -> None:
    m_ts = origin + np.cumsum(np.array(gaps, dtype=np.int64))
    instant = (m_ts - origin) // step
    expected = np.concatenate([[True], instant[1:] != instant[:-1]]).astype(np.int8)
    assert new_instants(m_ts, origin, step).tolist() == expected.tolist()


@numba.njit(cache=False)
def _sum_with_prefetch(values: np.ndarray, ahead: int) -> float:
    total = 0.0
    for i in range(values.shape[0]):
        prefetch(values, i + ahead)  # past the end for the last ones: a hint, never a read
        total += values[i]
    return total


@pytest.mark.parametrize("ahead", [0, 64, 1 << 20])
def test_a_prefetch_changes_no_value_and_may_point_past_the_array(ahead: int) -> None:
    values = np.arange(1_000, dtype=np.float64) / 7.0
    expected = 0.0
    for v in values.tolist():
        expected += v
    assert _sum_with_prefetch(values, ahead) == expected
    assert _sum_with_prefetch(np.zeros(0), ahead) == 0.0
