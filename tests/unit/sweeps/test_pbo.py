"""PBO by CSCV against a brute-force implementation and on constructed cases."""

from __future__ import annotations

import doctest
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from backtestd.sweeps import pbo as pbo_module
from backtestd.sweeps.pbo import block_stats, choose_splits, combinations_count, pbo


def test_docstring_examples_run() -> None:
    assert doctest.testmod(pbo_module).failed == 0


def brute_force_pbo(m: np.ndarray, s: int) -> tuple[float, list[float]]:
    """CSCV straight from the paper: slice rows, Sharpe by numpy, rank by scipy."""
    t, n = m.shape
    length = t // s
    m = m[t - length * s :]
    blocks = [m[i * length : (i + 1) * length] for i in range(s)]

    def sharpe(x: np.ndarray) -> np.ndarray:
        mean, std = x.mean(axis=0), x.std(axis=0, ddof=1)
        return np.where(std > 1e-12, mean / np.where(std > 0, std, 1.0), 0.0)

    logits = []
    for combo in itertools.combinations(range(s), s // 2):
        ins = np.vstack([blocks[i] for i in combo])
        oos = np.vstack([blocks[i] for i in range(s) if i not in combo])
        best = int(np.argmax(sharpe(ins)))
        rank = stats.rankdata(sharpe(oos), method="average")[best]
        w = rank / (n + 1)
        logits.append(math.log(w / (1 - w)))
    return sum(lg <= 0 for lg in logits) / len(logits), logits


@pytest.mark.parametrize(("t", "n", "s", "seed"), [(64, 5, 8, 0), (101, 7, 6, 1), (40, 2, 4, 2)])
def test_matches_brute_force(t: int, n: int, s: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = rng.normal(0.0, 0.01, size=(t, n)) + rng.normal(0.0, 0.002, size=n)
    got = pbo(m, s)
    assert got is not None
    expected, logits = brute_force_pbo(m, s)
    assert got.splits == s
    assert got.pbo == expected
    np.testing.assert_allclose(got.logits, logits, rtol=1e-9, atol=1e-12)


def test_pure_noise_gives_about_one_half() -> None:
    rng = np.random.default_rng(7)
    values = [pbo(rng.normal(0.0, 0.01, size=(320, 30)), 8).pbo for _ in range(30)]  # type: ignore[union-attr]
    assert 0.35 < float(np.mean(values)) < 0.65


def test_one_dominant_trial_is_not_overfit() -> None:
    rng = np.random.default_rng(3)
    m = rng.normal(0.0, 0.01, size=(800, 50))
    m[:, 17] = rng.normal(0.01, 0.01, size=800)  # Sharpe 1 per period vs 0
    result = pbo(m)
    assert result is not None
    assert result.splits == 16
    assert result.logits.shape == (combinations_count(16),)
    assert result.pbo == 0.0


def test_flat_trials_tie_and_count_as_no_better_than_median() -> None:
    m = np.zeros((40, 3))  # every Sharpe 0: all tie, rank (N+1)/2, logit 0 -> overfit
    assert pbo(m, 4).pbo == 1.0  # type: ignore[union-attr]


def test_minimums() -> None:
    assert pbo(np.zeros((100, 1))) is None  # one trial
    assert pbo(np.zeros((7, 5))) is None  # fewer than 4 blocks of 2
    assert pbo(np.full((40, 3), np.nan)) is None
    assert choose_splits(1000) == 16
    assert choose_splits(30) == 14  # largest even S with 2 periods per block
    assert choose_splits(8) == 4
    assert choose_splits(1000, 9) == 8  # an odd request is rounded down to even


def test_block_stats_are_exact_for_large_offsets() -> None:
    r = 1e6 + np.random.default_rng(0).normal(0.0, 1e-3, size=100)
    b = block_stats(r, 4)
    np.testing.assert_allclose(b.sums + 25 * b.shift, r.reshape(4, 25).sum(axis=1), rtol=1e-15)
    centred = r.reshape(4, 25) - b.shift
    np.testing.assert_allclose(b.sumsq, (centred**2).sum(axis=1), rtol=1e-12)
