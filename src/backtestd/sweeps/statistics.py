"""Overfitting statistics of a sweep: Deflated Sharpe Ratio per trial and PBO for the sweep.

DSR follows Bailey and López de Prado (2014), PBO the combinatorially symmetric
cross-validation of Bailey, Borwein, López de Prado and Zhu (2015); both on the trials' daily
returns. Formulas, inputs and minimums are in ``docs/sweeps.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
EULER_GAMMA = 0.5772156649015329
MAX_PBO_SPLITS = 16
MIN_PBO_SPLITS = 4
_NORMAL = NormalDist()


def _sharpe(returns: F64) -> float | None:
    if returns.shape[0] < 2:
        return None
    sd = float(returns.std(ddof=1))
    return None if sd <= 1e-12 else float(returns.mean()) / sd


def expected_max_sharpe(variance: float, trials: int) -> float:
    """E[max SR] of ``trials`` independent zero-skill trials whose SRs have this variance.

    >>> round(expected_max_sharpe(1.0, 100), 4)
    2.5306
    """
    if trials < 2:
        return 0.0
    a = _NORMAL.inv_cdf(1.0 - 1.0 / trials)
    b = _NORMAL.inv_cdf(1.0 - 1.0 / (trials * math.e))
    return math.sqrt(variance) * ((1.0 - EULER_GAMMA) * a + EULER_GAMMA * b)


def probabilistic_sharpe(
    sr: float, benchmark: float, length: int, skew: float, kurt: float
) -> float | None:
    """PSR: probability that the true per-period SR exceeds ``benchmark`` given ``length``
    returns with that skewness and (non-excess) kurtosis; None when the variance term is <= 0.

    The 2014 paper's worked example (annualised SR 2.5 over 5 years of daily returns, skewness
    -3, kurtosis 10, against the expected maximum of 100 trials whose annualised SR variance
    is 1/2):

    >>> round(probabilistic_sharpe(2.5 / 250**0.5, expected_max_sharpe(0.5 / 250, 100),
    ...                            1250, -3.0, 10.0), 4)
    0.9004
    """
    denom = 1.0 - skew * sr + (kurt - 1.0) / 4.0 * sr * sr
    if length < 2 or not denom > 0:
        return None
    return _NORMAL.cdf((sr - benchmark) * math.sqrt(length - 1) / math.sqrt(denom))


def deflated_sharpe(returns: F64, benchmark: float) -> float | None:
    """PSR of one trial's per-period returns against the benchmark SR (skew/kurtosis aware)."""
    sr = _sharpe(returns)
    t = returns.shape[0]
    if sr is None or t < 3:
        return None
    centred = returns - returns.mean()
    m2 = float(np.mean(centred**2))
    skew = float(np.mean(centred**3)) / m2**1.5
    kurt = float(np.mean(centred**4)) / m2**2
    return probabilistic_sharpe(sr, benchmark, t, skew, kurt)


def deflated_sharpe_ratios(returns: Sequence[F64]) -> list[float | None]:
    """DSR of every trial, deflated by the number of trials and the variance of their SRs."""
    srs = [_sharpe(r) for r in returns]
    known = [s for s in srs if s is not None]
    if len(known) < 2:
        return [None] * len(returns)
    benchmark = expected_max_sharpe(float(np.var(known, ddof=1)), len(known))
    return [
        deflated_sharpe(r, benchmark) if s is not None else None
        for r, s in zip(returns, srs, strict=True)
    ]


def pbo_splits(periods: int) -> int | None:
    """The number of CSCV blocks for ``periods`` rows: even, at most 16, two rows per block."""
    splits = min(MAX_PBO_SPLITS, periods // 2)
    splits -= splits % 2
    return splits if splits >= MIN_PBO_SPLITS else None


def _block_sharpes(matrix: F64, rows: npt.NDArray[np.bool_]) -> F64:
    part = matrix[rows]
    sd = part.std(axis=0, ddof=1)
    mean = part.mean(axis=0)
    out = np.zeros(matrix.shape[1])
    np.divide(mean, sd, out=out, where=sd > 1e-12)
    return out


def probability_of_overfitting(matrix: F64) -> tuple[float, int] | None:
    """``(pbo, splits)`` of a T x N matrix of per-period returns, or None below the minimums.

    For every way of choosing half of the S blocks as in-sample, the in-sample best trial's
    out-of-sample Sharpe is ranked among all trials; PBO is the share of choices where it lands
    in the bottom half (logit of the relative rank <= 0).
    """
    periods, trials = matrix.shape
    splits = pbo_splits(periods)
    if splits is None or trials < 2:
        return None
    block = np.arange(periods) * splits // periods
    overfit = 0
    total = 0
    for chosen in combinations(range(splits), splits // 2):
        in_sample = np.isin(block, chosen)
        is_sr = _block_sharpes(matrix, in_sample)
        oos_sr = _block_sharpes(matrix, ~in_sample)
        best = int(np.argmax(is_sr))
        rank = int(np.sum(oos_sr < oos_sr[best])) + 1
        omega = rank / (trials + 1)
        overfit += math.log(omega / (1.0 - omega)) <= 0
        total += 1
    return overfit / total, splits
