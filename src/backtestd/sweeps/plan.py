"""A sweep's parameter vectors, re-expanded identically on every worker from the stored spec.

The spec stores each axis's coerced lattice, the sampler and the seed, so the API (which counts
and validates) and every shard (which runs a range of ``runIx``) see the same vectors in the
same order without storing them.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from backtestd.domain.sweeps import CurveMode, Sampler, SweepSpec

AUTO_RETAINED_CURVES = 10
"""Trials that keep an equity curve under ``equityCurve.mode = auto`` (the best by objective)."""


def lattices(spec: SweepSpec) -> list[tuple[str, list[Any]]]:
    return [(axis["name"], list(axis["values"])) for axis in spec.axes]


def grid_size(axes: list[tuple[str, list[Any]]]) -> int:
    return math.prod(len(values) for _, values in axes)


def expand_vectors(spec: SweepSpec) -> list[dict[str, Any]]:
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
    rng = np.random.default_rng(spec.seed)
    if spec.sampler is Sampler.RANDOM:
        picks = [rng.integers(0, len(values), size=n) for _, values in axes]
    else:
        picks = [_lhs_indices(rng, n, len(values)) for _, values in axes]
    return [
        {name: values[int(pick[i])] for (name, values), pick in zip(axes, picks, strict=True)}
        for i in range(n)
    ]


def _lhs_indices(rng: np.random.Generator, n: int, size: int) -> npt.NDArray[np.int64]:
    """Lattice indices of a Latin hypercube column: sample ``i`` falls in stratum ``perm[i]``.

    Stratum ``k`` of ``n`` owns the lattice indices ``[ceil(k*L/n), ceil((k+1)*L/n))``, so with
    a lattice at least as fine as the strata every stratum is hit exactly once; a coarser
    lattice maps several strata onto one point.
    """
    strata = rng.permutation(n)
    u = rng.random(n)
    if size >= n:
        lo = -((-strata * size) // n)
        hi = -((-(strata + 1) * size) // n)
        return (lo + np.floor(u * (hi - lo))).astype(np.int64)
    return np.floor((strata + u) * size / n).astype(np.int64)


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
