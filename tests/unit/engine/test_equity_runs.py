"""The grid equity read from its changes against the full grid it replaced, bit for bit.

The kernel's pass over the equity's changes (``kernel.equity_pass``) gives a trial its
drawdown and daily equity, and the runs when asked. The oracle is
``reference_portfolio.simulate``, which computes the equity at every grid instant with the
vectorised valuation of ``mark_to_market`` (the kernel's full-grid equity was held to it bit
for bit before it became runs). Expanding the runs must give exactly that array, and every
metric and daily return read from the pass or from the runs must be the same float as the one
read from that array.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.unit.engine import reference_portfolio
from tests.unit.engine.portfolio_configs import portfolio_configs

from backtestd.engine.equity_runs import EquityRuns, grid_length
from backtestd.engine.kernel import equity_pass, new_instants, run_kernel
from backtestd.engine.kernel_metrics import daily_equity, daily_equity_runs, equity_stats, run_stats
from backtestd.engine.mark_to_market import grid_timestamps
from backtestd.engine.metrics import DAY_MS, compute_metrics, daily_returns, grid_daily_returns
from backtestd.engine.portfolio import (
    PortfolioConfig,
    PortfolioResult,
    kernel_config,
    kernel_mode,
    simulate,
    trigger_prices,
)

Arrays = dict[str, np.ndarray]
prices = st.sampled_from([8.0, 9.5, 10.0, 10.1, 11.0, 12.5, 13.0, 0.37, 1234.5])


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def _same_floats(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(_bits(a), _bits(b))


def _same_float(a: float, b: float) -> bool:
    return _same_floats(np.array([a]), np.array([b]))


@st.composite
def runs_cases(draw: st.DrawFn) -> tuple[Arrays, dict[str, int], PortfolioConfig]:
    """Random signals and marks, on and off the grid, over spans of a few dozen instants.

    The 60 s step with free millisecond timestamps is the ticker feed (signals filled at the
    triggering tick); the 1 ms step makes every millisecond a grid instant; a span that is not
    a multiple of the step gives a short last step. Timestamps are drawn from a few values
    now and then, so fills and marks share milliseconds and several marks fall in one step.
    """
    # 1 h and 2 h steps span up to 3 days, so the daily sampling (and Sharpe/Sortino, which
    # need two daily returns) is compared too, not only 0 against 0
    step = draw(st.sampled_from([1, 250, 1_000, 3_000, 60_000, 3_600_000, 7_200_000]))
    from_ms = draw(st.sampled_from([0, 1_234, -7_000]))
    to_ms = from_ms + draw(st.integers(1, 40)) * step - draw(st.sampled_from([0, 0, step // 3]))
    to_ms = max(to_ms, from_ms + 1)
    span = to_ms - from_ms
    pool = draw(st.lists(st.integers(-span // 8, span + span // 8), min_size=1, max_size=6))
    instant = st.one_of(
        st.integers(-span // 8, span + span // 8),  # anywhere, also outside the range
        st.sampled_from(pool),  # shared milliseconds
        st.integers(0, span // step).map(lambda k: k * step),  # exactly on a grid instant
    ).map(lambda t: t + from_ms)
    n_marks = draw(st.integers(0, 60))
    n_sigs = draw(st.integers(0, 25))

    def column(elements: st.SearchStrategy[float], n: int, dtype: type) -> np.ndarray:
        return np.array(draw(st.lists(elements, min_size=n, max_size=n)), dtype=dtype)

    px_ts = np.sort(column(instant, n_marks, np.int64))
    px = column(prices, n_marks, np.float64)
    sig_ts = np.sort(column(instant, n_sigs, np.int64))
    sig_price = column(prices, n_sigs, np.float64)
    if draw(st.booleans()):
        sig_price = trigger_prices(sig_ts, sig_price, px_ts, px)  # the ticker feed's fills
    arrays = {
        "sig_ts": sig_ts,
        "sig_side": column(st.sampled_from([1, -1]), n_sigs, np.int8),
        "sig_price": sig_price,
        "px_ts": px_ts,
        "px": px,
    }
    cfg = draw(portfolio_configs)
    return arrays, {"from_ms": from_ms, "to_ms": to_ms, "grid_step_ms": step}, cfg


def _check_runs_shape(runs: EquityRuns) -> None:
    start = runs.start
    assert start.dtype == np.int64
    assert runs.value.dtype == np.float64
    assert start.shape == runs.value.shape
    assert start.shape[0] >= 1
    assert start[0] == 0
    assert bool(np.all(np.diff(start) > 0))  # every run is shown by at least one instant
    assert start[-1] < runs.n_points


def _check_against_full_grid(got: PortfolioResult, ref: PortfolioResult, day_ms: int) -> None:
    runs = got.equity_runs
    _check_runs_shape(runs)
    assert np.array_equal(got.equity_ts, ref.equity_ts)
    assert _same_floats(runs.expand(), ref.equity)
    assert _same_floats(got.equity, ref.equity)
    full = equity_stats(ref.equity, ref.equity_ts, day_ms)
    span = (runs.from_ms, runs.to_ms, runs.step_ms)
    from_runs = run_stats(runs.start, runs.value, *span, day_ms)
    assert _same_floats(np.array(from_runs), np.array(full))
    assert _same_floats(
        daily_equity_runs(runs.start, runs.value, *span, day_ms),
        daily_equity(ref.equity, ref.equity_ts, day_ms),
    )
    # The kernel's pass without storing the runs: the same drawdown and daily equity.
    book = got.equity_book
    _, _, daily, dd, dd_pct = equity_pass(
        *span, day_ms, book.ts, book.rows, book.ts.shape[0], book.m_ts, book.m_px,
        new_instants(book.m_ts, runs.from_ms, runs.step_ms), book.initial, book.final, False,
    )  # fmt: skip
    assert _same_floats(daily, daily_equity(ref.equity, ref.equity_ts, day_ms))
    assert _same_floats(np.array([dd, dd_pct]), np.array(full[2:]))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=runs_cases(), day_ms=st.sampled_from([DAY_MS, 2_000, 7_777, 60_000]))
def test_equity_runs_expand_to_the_full_grid_equity_and_give_the_same_metric_bits(
    case: tuple[Arrays, dict[str, int], PortfolioConfig], day_ms: int
) -> None:
    """``day_ms`` below a day puts several day boundaries inside these short spans, so the
    daily sampling from runs is exercised at every kind of index (inside a run, at its start,
    on a short last step)."""
    arrays, span, cfg = case
    got = simulate(**arrays, **span, config=cfg)
    ref = reference_portfolio.simulate(**arrays, **span, config=cfg)
    assert got.final_equity == ref.final_equity
    _check_against_full_grid(got, ref, day_ms)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=runs_cases())
def test_metrics_and_daily_returns_from_runs_equal_those_from_the_expanded_grid(
    case: tuple[Arrays, dict[str, int], PortfolioConfig],
) -> None:
    arrays, span, cfg = case
    got = simulate(**arrays, **span, config=cfg)
    ref = reference_portfolio.simulate(**arrays, **span, config=cfg)
    from_grid = grid_daily_returns(ref.equity, ref.equity_ts)
    assert _same_floats(daily_returns(got), from_grid)
    assert _same_floats(got.daily_equity, daily_equity(ref.equity, ref.equity_ts, DAY_MS))
    m_runs, m_grid = compute_metrics(got), compute_metrics(ref)
    assert m_runs == m_grid
    for name in ("sharpe_ratio", "sortino_ratio", "max_drawdown", "max_drawdown_percent"):
        assert _same_float(getattr(m_runs, name), getattr(m_grid, name)), name


def test_a_result_builds_its_full_grid_only_when_asked() -> None:
    ts = np.arange(0, 10_000, 1_000, dtype=np.int64)
    r = simulate(
        ts[[1, 5]], np.array([1, -1], dtype=np.int8), np.array([10.0, 11.0]),
        ts, np.linspace(10.0, 12.0, 10), from_ms=0, to_ms=10_000, grid_step_ms=1_000,
    )  # fmt: skip
    compute_metrics(r)
    daily_returns(r)
    assert "equity" not in r.__dict__
    assert "equity_ts" not in r.__dict__
    assert "equity_runs" not in r.__dict__
    assert r.equity.shape == (11,)
    assert r.equity is r.equity  # built once, then cached
    assert r.equity_ts.tolist() == grid_timestamps(0, 10_000, 1_000).tolist()


def test_a_value_replaced_before_any_grid_instant_is_not_in_the_drawdown() -> None:
    """Bought at 10 at 100 ms; a mark at 400 ms crashes to 1, one at 900 ms recovers to 11.
    The instant at 1 s sees only 11, so the crash is no drawdown; at the last instant the
    value marked at 1.5 s (12.5) is replaced by the final cash, so it is no peak either."""
    config = PortfolioConfig(buy_fee_rate=0.0, sell_fee_rate=0.1)
    r = simulate(
        np.array([100], dtype=np.int64), np.array([1], dtype=np.int8), np.array([10.0]),
        np.array([400, 900, 1_500], dtype=np.int64), np.array([1.0, 11.0, 12.5]),
        from_ms=0, to_ms=2_000, grid_step_ms=1_000, config=config,
    )  # fmt: skip
    assert r.equity.tolist() == [100.0, 110.0, r.final_equity]
    assert r.final_equity == pytest.approx(112.5)  # 10 units sold at 12.5 less 10 %
    assert r.equity_runs.start.tolist() == [0, 1, 2]
    m = compute_metrics(r)
    assert m.max_drawdown == 0.0
    assert m.max_drawdown_percent == 0.0
    ref = reference_portfolio.simulate(
        np.array([100], dtype=np.int64), np.array([1], dtype=np.int8), np.array([10.0]),
        np.array([400, 900, 1_500], dtype=np.int64), np.array([1.0, 11.0, 12.5]),
        from_ms=0, to_ms=2_000, grid_step_ms=1_000, config=config,
    )  # fmt: skip
    _check_against_full_grid(r, ref, DAY_MS)


def test_a_flat_month_at_one_second_is_one_run() -> None:
    days = 30
    to = days * DAY_MS
    ts = np.arange(0, to, 1_000, dtype=np.int64)
    r = simulate(
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8), np.zeros(0),
        ts, np.full(ts.shape, 10.0), from_ms=0, to_ms=to, grid_step_ms=1_000,
    )  # fmt: skip
    assert r.equity_runs.start.tolist() == [0]
    assert r.equity_runs.n_points == 2_592_001
    assert daily_returns(r).tolist() == [0.0] * days


@pytest.mark.parametrize("initial", [100.0, 7.5])
def test_a_single_point_grid_is_one_run_of_the_final_cash(initial: float) -> None:
    """``from == to``: the grid is ``[to]`` (``grid_timestamps(5, 5, step)``), one instant
    that shows the final cash; its metrics are those of the one-point array."""
    cfg = kernel_config(PortfolioConfig(initial_funding=initial))
    empty_ts, empty_px = np.zeros(0, dtype=np.int64), np.zeros(0)
    no_flags = np.zeros(0, dtype=np.int8)
    _, _, _, book_ts, book_f, daily, dd, dd_pct, final, _ = run_kernel(
        empty_ts, np.zeros(0, dtype=np.int8), empty_px, empty_ts, empty_px, no_flags,
        5, 5, 1_000, DAY_MS, cfg, kernel_mode(PortfolioConfig()),
    )  # fmt: skip
    start, value, _, _, _ = equity_pass(
        5, 5, 1_000, DAY_MS, book_ts, book_f, 0, empty_ts, empty_px, no_flags, initial, final,
        True,
    )  # fmt: skip
    runs = EquityRuns(start, value, 5, 5, 1_000)
    grid = grid_timestamps(5, 5, 1_000)
    assert grid_length(5, 5, 1_000) == 1
    assert grid.tolist() == [5]
    assert start.tolist() == [0]
    assert value.tolist() == [initial]
    assert final == initial
    full = equity_stats(runs.expand(), grid, DAY_MS)
    assert _same_floats(np.array(run_stats(start, value, 5, 5, 1_000, DAY_MS)), np.array(full))
    assert _same_floats(daily, daily_equity(runs.expand(), grid, DAY_MS))
    assert _same_floats(np.array([dd, dd_pct]), np.array(full[2:]))


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, 1e300]), min_size=1, max_size=30),
    step=st.sampled_from([1, 7]),
)
def test_encode_then_expand_gives_the_same_bits(values: list[float], step: int) -> None:
    equity = np.array(values)
    to_ms = 10 + (equity.shape[0] - 1) * step
    runs = EquityRuns.encode(equity, 10, to_ms, step)
    _check_runs_shape(runs)
    assert _same_floats(runs.expand(), equity)
