"""A sweep's parameter vectors, re-expanded identically on every worker from the stored spec.

The spec stores each axis's coerced lattice, the sampler and the seed, so the API (which counts
and validates) and every shard (which runs a range of ``runIx``) see the same vectors in the
same order without storing them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import numpy.typing as npt

from backtestd.domain.sweeps import CurveMode, Params, ParamScalar, Sampler, SweepSpec

AUTO_RETAINED_CURVES = 10
"""Trials that keep an equity curve under ``equityCurve.mode = auto`` (the best by objective)."""


Lattice = tuple[str, tuple[ParamScalar, ...]]
"""An axis as ``(name, values)``."""


def lattices(spec: SweepSpec) -> list[Lattice]:
    return [(axis.name, axis.values) for axis in spec.axes]


def grid_size(axes: list[Lattice]) -> int:
    """The number of grid vectors: the product of the lattice sizes.

    >>> grid_size([("fast", (5, 10, 15)), ("slow", (20, 30))])
    6
    """
    return math.prod(len(values) for _, values in axes)


def expand_vectors(spec: SweepSpec) -> list[Params]:
    """Every vector of the sweep; index = ``runIx`` (fold-local index in walk-forward mode).

    ``grid`` is the cartesian product with the first axis varying slowest; ``random`` draws
    ``samples`` lattice points uniformly; ``lhs`` draws a Latin hypercube over the lattice.
    """
    axes = lattices(spec)
    names = [name for name, _ in axes]
    if spec.sampler is Sampler.GRID:
        return [
            dict(zip(names, combo, strict=True))
            for combo in itertools.product(*(v for _, v in axes))
        ]
    n = int(spec.samples or 0)
    if spec.sampler is Sampler.RANDOM:
        rng = np.random.default_rng(spec.seed)
        picks = [rng.integers(0, len(values), size=n) for _, values in axes]
    else:
        picks = _lhs_indices(spec.seed, n, [len(values) for _, values in axes])
    return [
        {name: values[int(pick[i])] for (name, values), pick in zip(axes, picks, strict=True)}
        for i in range(n)
    ]


def _lhs_indices(seed: int | None, n: int, sizes: list[int]) -> list[npt.NDArray[np.int64]]:
    """Lattice indices per axis of an ``n``-point Latin hypercube (``scipy.stats.qmc``).

    The hypercube puts exactly one point in each of the ``n`` equal strata of ``[0, 1)`` on every
    axis. Stratum ``k`` owns the lattice indices ``[ceil(k*L/n), ceil((k+1)*L/n))``, and a point
    at fraction ``f`` of its stratum takes the index at that fraction of the stratum's indices,
    so with a lattice at least as fine as the strata (``L >= n``) every stratum is hit exactly
    once; a coarser lattice maps several strata onto one point (``floor(u * L)``). The same seed
    gives the same vectors on every worker.

    >>> [sorted(int(i) // 2 for i in axis) for axis in _lhs_indices(7, 5, [10, 10])]
    [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
    """
    if n == 0 or not sizes:
        return [np.zeros(n, dtype=np.int64) for _ in sizes]
    # Imported here: scipy.stats costs ~2 CPU s to import on a 2-core machine, paid otherwise by
    # the server and every worker at start (and by each of the suite's ~100 server starts),
    # while only an LHS sweep needs it.
    from scipy.stats import qmc

    points = qmc.LatinHypercube(d=len(sizes), rng=np.random.default_rng(seed)).random(n)
    return [_lattice_index(points[:, axis], n, size) for axis, size in enumerate(sizes)]


def _lattice_index(u: npt.NDArray[np.float64], n: int, size: int) -> npt.NDArray[np.int64]:
    if size < n:
        return np.minimum(np.floor(u * size), size - 1).astype(np.int64)
    stratum = np.minimum(np.floor(u * n), n - 1).astype(np.int64)
    within = u * n - stratum
    lo = -((-stratum * size) // n)
    hi = -((-(stratum + 1) * size) // n)
    return np.minimum(lo + np.floor(within * (hi - lo)).astype(np.int64), hi - 1)


def retained_count(spec: SweepSpec, total: int) -> int:
    """How many trials keep their equity curve (the best ones by the submitted objective)."""
    prefs = spec.curves
    if prefs.mode is CurveMode.NONE:
        return 0
    if prefs.mode is CurveMode.TOP_N:
        return min(int(prefs.n or 0), total)
    if prefs.mode is CurveMode.TOP_PCT:
        return min(total, math.ceil(float(prefs.max_pct or 0) / 100.0 * total))
    return min(AUTO_RETAINED_CURVES, total)
