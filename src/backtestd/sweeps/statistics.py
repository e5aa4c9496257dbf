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
from typing import NamedTuple

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


class TrialMoments(NamedTuple):
    """What a trial's DSR needs of its returns: its per-period SR (None when undefined), the
    number of returns, their skewness and (non-excess) kurtosis (0.0 when the DSR is None
    anyway). A trial's returns never change, so a reader of a running sweep computes these once
    per trial and only the benchmark, which every new trial moves, again per row count."""

    sharpe: float | None
    length: int
    skew: float
    kurt: float


def trial_moments(returns: F64) -> TrialMoments:
    sr = _sharpe(returns)
    t = returns.shape[0]
    if sr is None or t < 3:
        return TrialMoments(sr, t, 0.0, 0.0)
    centred = returns - returns.mean()
    m2 = float(np.mean(centred**2))
    skew = float(np.mean(centred**3)) / m2**1.5
    kurt = float(np.mean(centred**4)) / m2**2
    return TrialMoments(sr, t, skew, kurt)


def _deflated(moments: TrialMoments, benchmark: float) -> float | None:
    """PSR of one trial against the benchmark SR (skew/kurtosis aware)."""
    if moments.sharpe is None or moments.length < 3:
        return None
    return probabilistic_sharpe(
        moments.sharpe, benchmark, moments.length, moments.skew, moments.kurt
    )


def deflated_sharpe_ratios(returns: Sequence[F64]) -> list[float | None]:
    """DSR of every trial, deflated by the number of trials and the variance of their SRs."""
    return deflated_sharpe_ratios_of([trial_moments(r) for r in returns])


def deflated_sharpe_ratios_of(moments: Sequence[TrialMoments]) -> list[float | None]:
    """:func:`deflated_sharpe_ratios` from the trials' moments (:func:`trial_moments`)."""
    known = [m.sharpe for m in moments if m.sharpe is not None]
    if len(known) < 2:
        return [None] * len(moments)
    benchmark = expected_max_sharpe(float(np.var(known, ddof=1)), len(known))
    return [_deflated(m, benchmark) for m in moments]


def pbo_splits(periods: int) -> int | None:
    """The number of CSCV blocks for ``periods`` rows: even, at most 16, two rows per block."""
    splits = min(MAX_PBO_SPLITS, periods // 2)
    splits -= splits % 2
    return splits if splits >= MIN_PBO_SPLITS else None


_COMBO_CHUNK = 512
_TIE = 1e-12


def _sharpes(sums: F64, sumsq: F64, count: F64, shift: F64) -> F64:
    """Sharpe (``mean / std(ddof=1)``, 0 when the std is <= 1e-12) from sums of centred returns.

    ``sums``/``sumsq`` are ``(combinations, trials)`` sums of ``r - shift`` and its square over
    ``count`` periods; centring on each trial's mean keeps the variance exact.
    """
    n = count[:, None]
    mean_c = sums / n
    var = np.maximum(sumsq - n * mean_c * mean_c, 0.0) / (n - 1.0)
    sd = np.sqrt(var)
    out = np.zeros_like(sums)
    np.divide(mean_c + shift, sd, out=out, where=sd > 1e-12)
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
    # Blocks are contiguous (block of day i = floor(i * S / T)); every combination's in-sample and
    # out-of-sample Sharpes come from per-block sums, a matrix product per chunk of combinations.
    block = np.arange(periods) * splits // periods
    starts = np.searchsorted(block, np.arange(splits))
    shift = matrix.mean(axis=0)
    centred = matrix - shift
    sums = np.add.reduceat(centred, starts, axis=0)  # (S, N)
    sumsq = np.add.reduceat(centred * centred, starts, axis=0)
    counts = np.diff(np.append(starts, periods)).astype(np.float64)
    combos = np.array(list(combinations(range(splits), splits // 2)), dtype=np.intp)
    member = np.zeros((combos.shape[0], splits))
    member[np.arange(combos.shape[0])[:, None], combos] = 1.0
    total_s, total_q, total_n = sums.sum(axis=0), sumsq.sum(axis=0), float(periods)
    overfit = 0
    for lo in range(0, combos.shape[0], _COMBO_CHUNK):
        m = member[lo : lo + _COMBO_CHUNK]
        is_s, is_q, is_n = m @ sums, m @ sumsq, m @ counts
        is_sr = _sharpes(is_s, is_q, is_n, shift)
        oos_sr = _sharpes(total_s - is_s, total_q - is_q, total_n - is_n, shift)
        # Sharpes equal up to rounding (1e-12 relative) are ties, however they were summed.
        top = is_sr.max(axis=1, keepdims=True)
        best = np.argmax(is_sr >= top - _TIE * np.maximum(1.0, np.abs(top)), axis=1)
        own = oos_sr[np.arange(m.shape[0]), best][:, None]
        rank = np.count_nonzero(oos_sr < own - _TIE * np.maximum(1.0, np.abs(own)), axis=1) + 1
        omega = rank / (trials + 1)
        overfit += int(np.count_nonzero(np.log(omega / (1.0 - omega)) <= 0))
    return overfit / combos.shape[0], splits


class SweepStatistics(NamedTuple):
    """DSR of the live rows (``live``: their positions among the sweep's rows, by ``runIx``)
    and, once the sweep is finished, PBO and its number of splits."""

    live: list[int]
    dsr: list[float | None]
    pbo: tuple[float, int] | None
