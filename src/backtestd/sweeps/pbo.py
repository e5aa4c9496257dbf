"""Probability of Backtest Overfitting by combinatorially symmetric cross-validation (CSCV).

Bailey, Borwein, López de Prado and Zhu (2015). Input: the per-period returns of ``N`` trials
over the same ``T`` periods (a ``T x N`` matrix).

1. Drop the oldest ``T mod S`` periods and cut the rest into ``S`` (even) consecutive blocks of
   equal length.
2. For each of the ``C(S, S/2)`` ways to pick ``S/2`` blocks as in-sample (IS, the rest is
   out-of-sample, OOS): compute every trial's Sharpe ratio (``mean / std(ddof=1)``, 0 when the
   std is 0) on IS and on OOS, take the IS-best trial ``n*`` (lowest trial index on ties), its
   OOS rank ``r`` among the ``N`` trials (1 = worst, ties share their average rank),
   ``w = r / (N + 1)`` and ``logit = ln(w / (1 - w))``.
3. ``pbo`` = the fraction of combinations whose logit is ``<= 0`` (the IS winner did no better
   than the OOS median).

Each trial's data enters only as per-block sums, so a worker can reduce a trial's returns to
``S`` sums and sums of squares (:func:`block_stats`) and never ship the whole series.

Minimums: ``N >= 2`` trials; ``S`` = the requested splits (default 16), lowered to the largest
even number that leaves every block at least ``MIN_BLOCK`` periods; not computable (None) when
that is below ``MIN_SPLITS``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]

DEFAULT_SPLITS = 16
MIN_SPLITS = 4  # 6 combinations; S = 2 would give only 2, too few to call a probability
MIN_BLOCK = 2  # periods per block, so that a block's std exists
MIN_TRIALS = 2
_CHUNK = 1024


@dataclass(frozen=True)
class BlockStats:
    """Per-block sums of one trial's returns, centred on ``shift`` to keep the sums exact."""

    shift: float
    sums: F64  # (S,)  sum of (r - shift) per block
    sumsq: F64  # (S,)  sum of (r - shift)**2 per block


@dataclass(frozen=True)
class PboResult:
    pbo: float
    splits: int
    logits: F64  # one per combination


def choose_splits(periods: int, requested: int = DEFAULT_SPLITS) -> int | None:
    """The ``S`` used for ``periods`` returns, or None when fewer than ``MIN_SPLITS`` fit.

    >>> choose_splits(1000), choose_splits(20), choose_splits(7)
    (16, 10, None)
    """
    fit = 2 * (periods // (2 * MIN_BLOCK))
    s = min(requested - requested % 2, fit)
    return s if s >= MIN_SPLITS else None


def block_stats(returns: F64, splits: int) -> BlockStats:
    """One trial's block sums for ``splits`` blocks (the oldest ``T mod S`` periods dropped).

    >>> b = block_stats(np.array([9.0, 1.0, 2.0, 3.0, 4.0]), 2)
    >>> b.shift, b.sums.tolist(), b.sumsq.tolist()
    (2.5, [-2.0, 2.0], [2.5, 2.5])
    """
    r = np.asarray(returns, dtype=np.float64)
    length = r.shape[0] // splits
    kept = r[r.shape[0] - length * splits :].reshape(splits, length)
    shift = float(np.mean(kept))
    centred = kept - shift
    return BlockStats(shift, centred.sum(axis=1), np.square(centred).sum(axis=1))


def _sharpe(sums: F64, sumsq: F64, shift: F64, count: int) -> F64:
    mean_c = sums / count
    var = np.maximum(sumsq - count * mean_c**2, 0.0) / (count - 1)
    std = np.sqrt(var)
    mean = mean_c + shift
    out = np.zeros_like(mean)
    np.divide(mean, std, out=out, where=std > 1e-12 * np.maximum(1.0, np.abs(mean)))
    return out


def _oos_rank(oos: F64, best: npt.NDArray[np.intp]) -> F64:
    """Average rank (1 = worst) of trial ``best[c]`` among the OOS Sharpes of combination c."""
    rows = np.arange(oos.shape[0])
    own = oos[rows, best][:, None]
    below = np.count_nonzero(oos < own, axis=1)
    equal = np.count_nonzero(oos == own, axis=1)
    return below + (equal + 1) / 2.0


def pbo_from_blocks(stats: list[BlockStats], block_length: int) -> PboResult | None:
    """CSCV over trials given as block sums (all with the same ``S`` and block length).

    >>> noise = np.random.default_rng(1).normal(size=(64, 8))
    >>> r = pbo_from_blocks([block_stats(noise[:, i], 8) for i in range(8)], 8)
    >>> r.splits, r.logits.shape
    (8, (70,))
    """
    n = len(stats)
    if n < MIN_TRIALS or block_length < MIN_BLOCK:
        return None
    splits = int(stats[0].sums.shape[0])
    if splits < MIN_SPLITS or splits % 2:
        return None
    sums = np.stack([s.sums for s in stats], axis=1)  # (S, N)
    sumsq = np.stack([s.sumsq for s in stats], axis=1)
    shift = np.array([s.shift for s in stats])
    total_s, total_q = sums.sum(axis=0), sumsq.sum(axis=0)
    half = splits // 2
    count = half * block_length
    combos = np.array(list(itertools.combinations(range(splits), half)), dtype=np.intp)
    member = np.zeros((combos.shape[0], splits))
    member[np.arange(combos.shape[0])[:, None], combos] = 1.0
    logits = np.empty(combos.shape[0])
    for lo in range(0, combos.shape[0], _CHUNK):
        m = member[lo : lo + _CHUNK]
        is_s, is_q = m @ sums, m @ sumsq
        is_sr = _sharpe(is_s, is_q, shift, count)
        oos_sr = _sharpe(total_s - is_s, total_q - is_q, shift, count)
        best = np.argmax(is_sr, axis=1)
        w = _oos_rank(oos_sr, best) / (n + 1)
        logits[lo : lo + m.shape[0]] = np.log(w / (1.0 - w))
    return PboResult(float(np.mean(logits <= 0.0)), splits, logits)


def pbo(returns: F64, requested_splits: int = DEFAULT_SPLITS) -> PboResult | None:
    """PBO of a ``T x N`` matrix of per-period returns; None below the minimums.

    >>> rng = np.random.default_rng(0)
    >>> m = rng.normal(0.0, 0.01, size=(400, 20))
    >>> m[:, 3] += 0.02  # one trial better in every period: never overfit
    >>> pbo(m).pbo, pbo(m).splits
    (0.0, 16)
    """
    matrix = np.asarray(returns, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[1] < MIN_TRIALS:
        return None
    if not bool(np.all(np.isfinite(matrix))):
        return None
    splits = choose_splits(int(matrix.shape[0]), requested_splits)
    if splits is None:
        return None
    length = matrix.shape[0] // splits
    stats = [block_stats(matrix[:, i], splits) for i in range(matrix.shape[1])]
    return pbo_from_blocks(stats, length)


def combinations_count(splits: int) -> int:
    """``C(S, S/2)``, the number of IS/OOS partitions.

    >>> combinations_count(16)
    12870
    """
    return math.comb(splits, splits // 2)
