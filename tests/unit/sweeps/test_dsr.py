"""Deflated Sharpe Ratio against the paper's worked example and an independent implementation."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from scipy import stats

from backtestd.sweeps import dsr
from backtestd.sweeps.dsr import (
    ReturnMoments,
    deflated_sharpe,
    deflated_sharpe_rows,
    expected_max_sharpe,
    probabilistic_sharpe,
    return_moments,
)


def test_docstring_examples_run() -> None:
    assert doctest.testmod(dsr).failed == 0


def independent_dsr(returns: np.ndarray, trial_srs: list[float]) -> float:
    """Written from the paper with scipy.stats (norm.ppf/cdf, skew, kurtosis), no shared code."""
    n = len(trial_srs)
    v = stats.tvar(trial_srs)  # unbiased variance
    e = 0.5772156649015329
    sr0 = math.sqrt(v) * (
        (1 - e) * stats.norm.ppf(1 - 1 / n) + e * stats.norm.ppf(1 - 1 / (n * math.e))
    )
    sr = returns.mean() / returns.std(ddof=1)
    g3 = stats.skew(returns)
    g4 = stats.kurtosis(returns, fisher=False)
    t = len(returns)
    return float(
        stats.norm.cdf(
            (sr - sr0) * math.sqrt(t - 1) / math.sqrt(1 - g3 * sr + (g4 - 1) / 4 * sr**2)
        )
    )


def test_paper_worked_example() -> None:
    # Bailey & Lopez de Prado (2014), numerical example: N = 100 trials, annualised variance of
    # the trials' Sharpe 1/2, selected annualised Sharpe 2.5, 5 years of daily returns
    # (T = 1250, 250 a year), skewness -3, kurtosis 10. The paper reports E[max SR] ~ 0.1132
    # per period and DSR ~ 0.9004.
    sr0 = expected_max_sharpe(100, 0.5 / 250)
    assert sr0 == pytest.approx(0.1132, abs=5e-5)
    got = probabilistic_sharpe(2.5 / math.sqrt(250), sr0, 1250, -3.0, 10.0)
    assert got == pytest.approx(0.9004, abs=5e-5)


def test_matches_independent_implementation_on_random_trials() -> None:
    rng = np.random.default_rng(42)
    trials = [rng.standard_t(5, size=600) * 0.01 + rng.normal(0, 0.0005) for _ in range(40)]
    moments = [return_moments(r) for r in trials]
    srs = [m.sharpe for m in moments]  # type: ignore[union-attr]
    rows = deflated_sharpe_rows(moments)
    for r, got in zip(trials, rows, strict=True):
        assert got == pytest.approx(independent_dsr(r, srs), rel=1e-9, abs=1e-12)
    assert deflated_sharpe(moments[0], srs) == rows[0]  # type: ignore[arg-type]


def test_return_moments_match_scipy() -> None:
    r = np.random.default_rng(1).lognormal(size=300) - 1.5
    m = return_moments(r)
    assert m is not None
    assert m.sharpe == pytest.approx(r.mean() / r.std(ddof=1))
    assert m.skew == pytest.approx(stats.skew(r))
    assert m.kurtosis == pytest.approx(stats.kurtosis(r, fisher=False))
    assert m.length == 300


def test_more_trials_deflate_more() -> None:
    m = ReturnMoments(0.1, 0.0, 3.0, 500)
    few = deflated_sharpe(m, [0.0, 0.05, 0.1])
    many = deflated_sharpe(m, [0.0, 0.05, 0.1] * 50)
    assert few is not None
    assert many is not None
    assert many < few


def test_absent_when_not_computable() -> None:
    m = ReturnMoments(0.1, 0.0, 3.0, 500)
    assert return_moments(np.zeros(10)) is None  # constant returns (flat equity)
    assert return_moments(np.array([0.1])) is None
    assert return_moments(np.array([0.1, np.nan, 0.2])) is None
    assert deflated_sharpe(m, [0.1]) is None  # one trial
    assert expected_max_sharpe(1, 0.1) is None
    assert probabilistic_sharpe(1.0, 0.0, 100, 5.0, 3.0) is None  # 1 - 5 + 0.5 <= 0
    assert probabilistic_sharpe(0.1, 0.0, 1, 0.0, 3.0) is None
    assert deflated_sharpe_rows([m, None]) == [None, None]  # one trial with moments
    rows = deflated_sharpe_rows([m, None, ReturnMoments(0.0, 0.0, 3.0, 500)])
    assert rows[1] is None
    assert rows[0] is not None


def test_per_period_sharpe_is_the_row_sharpe_deannualised() -> None:
    # The DSR must use the same Sharpe as the leaderboard row (engine.metrics), per period.
    from backtestd.engine.metrics import periods_per_year, sharpe_ratio, simple_returns

    equity = 100.0 * np.cumprod(1.0 + np.random.default_rng(5).normal(1e-4, 1e-3, size=2000))
    r = simple_returns(equity)
    periods = periods_per_year(60_000)
    m = return_moments(r)
    assert m is not None
    assert m.sharpe * math.sqrt(periods) == pytest.approx(sharpe_ratio(r, periods), rel=1e-12)
    assert m.length == 1999
