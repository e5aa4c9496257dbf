"""Deflated Sharpe Ratio (Bailey and López de Prado, 2014).

The DSR is the probability that a trial's true Sharpe ratio exceeds the Sharpe ratio the best of
``N`` worthless trials would show by luck. All Sharpe ratios here are **per period** (not
annualised): ``SR = mean / std(ddof=1)`` of the trial's per-period returns, i.e. the annualised
``sharpe`` divided by ``sqrt(periods per year)``.

- Expected maximum of ``N`` trials' Sharpe ratios under the null (eq. in §3 of the paper)::

      SR0 = sqrt(V) * ((1 - g) * Z(1 - 1/N) + g * Z(1 - 1/(N e)))

  with ``V`` the variance (ddof=1) of the ``N`` trials' Sharpe ratios, ``g`` the Euler-Mascheroni
  constant and ``Z`` the standard normal quantile.
- Probabilistic Sharpe Ratio of the trial against ``SR0``::

      DSR = Phi((SR - SR0) * sqrt(T - 1) / sqrt(1 - skew * SR + (kurt - 1) / 4 * SR**2))

  with ``T`` the number of returns, ``skew`` and ``kurt`` (non-excess: 3 for a normal) the
  population moments of the trial's returns.

Not computable (None): fewer than 2 trials, fewer than 2 returns, constant returns, a
non-positive radicand, or any non-finite input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import ndtr, ndtri

F64 = npt.NDArray[np.float64]
EULER_GAMMA = 0.5772156649015329
MIN_DISPERSION = 1e-12  # returns with a smaller std count as constant (as in engine.metrics)


@dataclass(frozen=True)
class ReturnMoments:
    """What the DSR needs from a trial's returns; small enough to store with its row."""

    sharpe: float  # per period, mean / std(ddof=1)
    skew: float
    kurtosis: float  # non-excess
    length: int


def return_moments(returns: F64) -> ReturnMoments | None:
    """Per-period Sharpe, skewness, kurtosis and length of ``returns``; None if constant.

    >>> m = return_moments(np.array([0.01, -0.01, 0.02, 0.0]))
    >>> round(m.sharpe, 6), round(m.skew, 6), round(m.kurtosis, 6), m.length
    (0.387298, 0.0, 1.64, 4)
    """
    r = np.asarray(returns, dtype=np.float64)
    t = int(r.shape[0])
    if t < 2 or not bool(np.all(np.isfinite(r))):
        return None
    mean = float(np.mean(r))
    centred = r - mean
    m2 = float(np.mean(centred**2))
    std = float(np.std(r, ddof=1))
    if std <= MIN_DISPERSION or m2 <= 0.0:
        return None
    skew = float(np.mean(centred**3)) / m2**1.5
    kurt = float(np.mean(centred**4)) / m2**2
    return ReturnMoments(mean / std, skew, kurt, t)


def expected_max_sharpe(n_trials: int, sharpe_variance: float) -> float | None:
    """``SR0``: the expected maximum Sharpe of ``n_trials`` null trials with that variance.

    >>> round(expected_max_sharpe(100, 0.5 / 250), 4)
    0.1132
    """
    if n_trials < 2 or not math.isfinite(sharpe_variance) or sharpe_variance < 0:
        return None
    z1 = float(ndtri(1.0 - 1.0 / n_trials))
    z2 = float(ndtri(1.0 - 1.0 / (n_trials * math.e)))
    return math.sqrt(sharpe_variance) * ((1.0 - EULER_GAMMA) * z1 + EULER_GAMMA * z2)


def probabilistic_sharpe(
    sharpe: float, benchmark: float, length: int, skew: float, kurtosis: float
) -> float | None:
    """PSR: probability that the true per-period Sharpe exceeds ``benchmark``.

    >>> round(probabilistic_sharpe(0.1, 0.0, 101, 0.0, 3.0), 6)
    0.840741
    """
    values = (sharpe, benchmark, skew, kurtosis)
    if length < 2 or not all(math.isfinite(v) for v in values):
        return None
    radicand = 1.0 - skew * sharpe + (kurtosis - 1.0) / 4.0 * sharpe**2
    if not radicand > 0.0:
        return None
    z = (sharpe - benchmark) * math.sqrt(length - 1) / math.sqrt(radicand)
    return float(ndtr(z))


def deflated_sharpe(moments: ReturnMoments, trial_sharpes: Sequence[float]) -> float | None:
    """DSR of one trial given every trial's per-period Sharpe (the trial included).

    >>> m = ReturnMoments(0.1, 0.0, 3.0, 500)
    >>> round(deflated_sharpe(m, [0.0, 0.05, 0.1]), 4)
    0.8994
    """
    srs = np.asarray(trial_sharpes, dtype=np.float64)
    if srs.shape[0] < 2 or not bool(np.all(np.isfinite(srs))):
        return None
    sr0 = expected_max_sharpe(int(srs.shape[0]), float(np.var(srs, ddof=1)))
    if sr0 is None:
        return None
    return probabilistic_sharpe(moments.sharpe, sr0, moments.length, moments.skew, moments.kurtosis)


def deflated_sharpe_rows(moments: Sequence[ReturnMoments | None]) -> list[float | None]:
    """DSR of every trial of a sweep; trials without moments are absent and do not count.

    ``N`` is the number of trials with moments (finished, non-aborted, non-constant returns).

    >>> ms = [ReturnMoments(s, 0.0, 3.0, 500) for s in (0.01, 0.05, 0.1)]
    >>> [round(x, 4) for x in deflated_sharpe_rows(ms)]
    [0.2625, 0.6017, 0.9149]
    """
    srs = np.array([m.sharpe for m in moments if m is not None], dtype=np.float64)
    if srs.shape[0] < 2 or not bool(np.all(np.isfinite(srs))):
        return [None] * len(moments)
    sr0 = expected_max_sharpe(int(srs.shape[0]), float(np.var(srs, ddof=1)))
    if sr0 is None:
        return [None] * len(moments)
    return [
        None if m is None else probabilistic_sharpe(m.sharpe, sr0, m.length, m.skew, m.kurtosis)
        for m in moments
    ]
