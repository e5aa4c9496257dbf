"""Samplers: which lattice index vectors a sweep runs, and in which ``runIx`` order.

Every sampler returns an ``(runs, axes)`` int64 matrix of lattice indices (row ``r`` is
``runIx = r``); :func:`backtestd.sweeps.axes.vector` turns a row into parameter values.

- ``grid``: the cartesian product in row-major order, the **first axis (by name) slowest** and
  the last fastest, so ``runIx`` is the mixed-radix number of the index vector.
- ``random``: ``samples`` *distinct* vectors drawn uniformly without replacement from the
  lattice, in draw order.
- ``lhs``: a Latin hypercube (``scipy.stats.qmc.LatinHypercube``) mapped to the lattice so that
  each axis's index range is cut into ``samples`` contiguous strata and each stratum is hit once
  (when ``samples`` exceeds an axis's size, every point is hit ``floor`` or ``ceil`` of
  ``samples / size`` times instead).

``random`` and ``lhs`` are reproducible: a seed fixes the vectors (for one backtestd release:
numpy and scipy are pinned, and their generators are stable within a release).
"""

from __future__ import annotations

import enum
import math
import secrets
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from scipy.stats import qmc

from backtestd.errors import InvalidInput

I64 = npt.NDArray[np.int64]
MAX_SEED = 2**53 - 1  # the largest integer a JavaScript number holds exactly


class Sampler(enum.StrEnum):
    GRID = "grid"
    RANDOM = "random"
    LHS = "lhs"


def draw_seed() -> int:
    """A server-drawn seed in ``[0, 2**53 - 1]``, safe to send to JavaScript clients."""
    return secrets.randbelow(MAX_SEED + 1)


def check_seed(seed: int) -> int:
    """``seed`` if it is an integer in ``[0, 2**53 - 1]``, else :class:`InvalidInput`.

    >>> check_seed(42)
    42
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InvalidInput(
            f"sweep.seed must be an integer from 0 to {MAX_SEED} (a JavaScript-safe integer), "
            f"got {seed!r}"
        )
    return seed


def grid_size(sizes: Sequence[int]) -> int:
    """Number of vectors of the full grid (an exact Python integer, never overflowing).

    >>> grid_size([10, 10, 3])
    300
    """
    return math.prod(int(s) for s in sizes)


def grid_indices(sizes: Sequence[int], start: int = 0, stop: int | None = None) -> I64:
    """Index vectors of ``runIx`` in ``[start, stop)`` of the grid, first axis slowest.

    >>> grid_indices([2, 3]).tolist()
    [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    >>> grid_indices([2, 3], 4).tolist()
    [[1, 1], [1, 2]]
    """
    total = grid_size(sizes)
    stop = total if stop is None else min(stop, total)
    if not 0 <= start <= stop:
        raise ValueError(f"runIx range [{start}, {stop}) is outside the grid of {total}")
    if not sizes:
        return np.zeros((stop - start, 0), dtype=np.int64)
    runs = np.arange(start, stop, dtype=np.int64)
    return np.stack(np.unravel_index(runs, tuple(sizes)), axis=1).astype(np.int64)


def grid_run_index(sizes: Sequence[int], indices: I64) -> I64:
    """The inverse of :func:`grid_indices`: ``runIx`` of each index vector.

    >>> grid_run_index([2, 3], np.array([[1, 2], [0, 1]])).tolist()
    [5, 1]
    """
    if indices.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    return np.ravel_multi_index(tuple(indices.T), tuple(sizes)).astype(np.int64)


def random_indices(sizes: Sequence[int], samples: int, seed: int) -> I64:
    """``samples`` distinct index vectors, uniform without replacement, from ``seed``.

    >>> v = random_indices([10, 10], 5, seed=7)
    >>> v.shape, len({tuple(r) for r in v.tolist()})
    ((5, 2), 5)
    """
    total = grid_size(sizes)
    _check_samples(samples, total, distinct=True)
    rng = np.random.Generator(np.random.PCG64(seed))
    if total < 2**62:
        runs = rng.choice(total, size=samples, replace=False, shuffle=True)
        return grid_indices_of(sizes, runs.astype(np.int64))
    # Lattices beyond int64 (huge range axes): per-axis draws, duplicates redrawn.
    seen: set[tuple[int, ...]] = set()
    rows: list[tuple[int, ...]] = []
    while len(rows) < samples:
        row = tuple(int(rng.integers(0, s)) for s in sizes)
        if row not in seen:
            seen.add(row)
            rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(samples, len(sizes))


def grid_indices_of(sizes: Sequence[int], runs: I64) -> I64:
    """Index vectors of arbitrary ``runIx`` values of the grid (any order)."""
    if not sizes:
        return np.zeros((runs.shape[0], 0), dtype=np.int64)
    return np.stack(np.unravel_index(runs, tuple(sizes)), axis=1).astype(np.int64)


def lhs_indices(sizes: Sequence[int], samples: int, seed: int) -> I64:
    """A Latin hypercube of ``samples`` index vectors over the lattice, from ``seed``.

    Axis ``j`` of size ``m``: for a unit coordinate ``u`` in stratum ``k = floor(u * n)`` the
    index is ``lo + floor((u * n - k) * (hi - lo))`` with ``lo = floor(k * m / n)`` and
    ``hi = floor((k + 1) * m / n)`` when ``n <= m`` (stratum ``k`` of the index range, hit once),
    else ``floor(u * m)``.

    >>> v = lhs_indices([10], 5, seed=3)
    >>> sorted(int(i) // 2 for i in v[:, 0])
    [0, 1, 2, 3, 4]
    """
    _check_samples(samples, grid_size(sizes), distinct=False)
    d = len(sizes)
    if d == 0:
        return np.zeros((samples, 0), dtype=np.int64)
    unit = qmc.LatinHypercube(d, rng=np.random.default_rng(seed)).random(samples)
    out = np.empty((samples, d), dtype=np.int64)
    n = samples
    for j, m in enumerate(int(s) for s in sizes):
        u = unit[:, j]
        if n <= m:
            k = np.minimum(np.floor(u * n).astype(np.int64), n - 1)
            frac = u * n - k
            lo = _floor_mul_div(k, m, n)
            hi = _floor_mul_div(k + 1, m, n)
            out[:, j] = lo + np.minimum(np.floor(frac * (hi - lo)).astype(np.int64), hi - lo - 1)
        else:
            out[:, j] = np.minimum(np.floor(u * m).astype(np.int64), m - 1)
    return out


def _floor_mul_div(k: I64, m: int, n: int) -> I64:
    """``floor(k * m / n)`` without the int64 overflow of ``k * m`` (``m`` up to 2**53)."""
    q, r = divmod(m, n)
    return k * q + (k * r) // n


def _check_samples(samples: int, total: int, *, distinct: bool) -> None:
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise InvalidInput(
            f"sweep.samples must be a positive integer for the random and lhs samplers, "
            f"got {samples!r}"
        )
    if distinct and samples > total:
        raise InvalidInput(
            f"sweep.samples ({samples}) exceeds the {total} distinct vectors of the lattice; "
            "lower samples or use the grid sampler"
        )


def sample_indices(
    sampler: Sampler, sizes: Sequence[int], *, samples: int | None, seed: int
) -> I64:
    """The index matrix of a sweep (row ``r`` is ``runIx = r``).

    >>> sample_indices(Sampler.GRID, [2, 2], samples=None, seed=0).shape
    (4, 2)
    """
    if sampler is Sampler.GRID:
        return grid_indices(sizes)
    if samples is None:
        raise InvalidInput(f"sweep.samples is required with the {sampler.value} sampler")
    if sampler is Sampler.RANDOM:
        return random_indices(sizes, samples, seed)
    return lhs_indices(sizes, samples, seed)
