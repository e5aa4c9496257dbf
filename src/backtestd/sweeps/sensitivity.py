"""Sensitivity surfaces: how the objective varies along each axis and each pair of axes.

Over the non-aborted rows (finished ones only while a sweep runs):

- a **marginal** per axis: for each value of that axis taken by at least one row, ``count``,
  ``best``, ``mean`` and ``worst`` of the objective over the rows with that value;
- a **heatmap** per pair of axes ``(A, B)`` with ``A`` before ``B`` in axis order: the same four
  figures per ``(valueA, valueB)`` cell with at least one row.

``best``/``worst`` follow the objective's direction (for ``maxdd`` the best is the smallest
drawdown). Points and cells are listed in value order (axis ``A`` slowest). Marginals are always
complete; heatmaps are emitted whole, in pair order, while both caps hold (``MAX_HEATMAPS``
surfaces, ``MAX_HEATMAP_CELLS`` cells in all), and ``heatmapsTruncated`` says one was left out.
Wire names follow §4.11 (``worst`` is sent in cells too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from backtestd.sweeps.axes import Axis
from backtestd.sweeps.objective import Objective

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
BOOL = npt.NDArray[np.bool_]

MAX_HEATMAPS = 45  # every pair of 10 axes
MAX_HEATMAP_CELLS = 50_000


@dataclass(frozen=True)
class SensitivityAxis:
    """An axis as the tables need it: its name and the value at each value-order rank.

    ``value_at`` is a function so that a lattice of 10^12 points is never listed; only the
    ranks rows actually hold are looked up.
    """

    name: str
    value_at: Callable[[int], Any]

    @classmethod
    def listed(cls, name: str, values: Sequence[Any]) -> SensitivityAxis:
        """From values already in value order (``values[k]`` has rank ``k``)."""
        return cls(name, values.__getitem__)

    @classmethod
    def from_axis(cls, axis: Axis) -> SensitivityAxis:
        return cls(axis.name, axis.value_at_rank)


@dataclass(frozen=True)
class Groups:
    """count / best / mean / worst of each group key present (keys ascending)."""

    keys: I64
    count: I64
    best: F64
    mean: F64
    worst: F64


def group_stats(keys: I64, values: F64, objective: Objective) -> Groups:
    """Aggregate ``values`` by integer ``keys``.

    >>> g = group_stats(np.array([1, 0, 1]), np.array([2.0, 5.0, 4.0]), Objective.MAXDD)
    >>> g.keys.tolist(), g.count.tolist(), g.best.tolist(), g.mean.tolist(), g.worst.tolist()
    ([0, 1], [1, 2], [5.0, 2.0], [5.0, 3.0], [5.0, 4.0])
    """
    uniq, inverse, count = np.unique(keys, return_inverse=True, return_counts=True)
    oriented = objective.oriented(values)
    hi = np.full(uniq.size, -np.inf)
    lo = np.full(uniq.size, np.inf)
    np.maximum.at(hi, inverse, oriented)
    np.minimum.at(lo, inverse, oriented)
    sums = np.bincount(inverse, weights=values, minlength=uniq.size)
    best, worst = (hi, lo) if objective.higher_is_better else (-hi, -lo)
    return Groups(uniq.astype(np.int64), count.astype(np.int64), best, sums / count, worst)


def _figures(g: Groups, i: int) -> dict[str, Any]:
    return {
        "count": int(g.count[i]),
        "best": float(g.best[i]),
        "mean": float(g.mean[i]),
        "worst": float(g.worst[i]),
    }


def sensitivity(
    axes: Sequence[SensitivityAxis],
    ranks: I64,
    values: F64,
    aborted: BOOL,
    objective: Objective,
    *,
    max_heatmaps: int = MAX_HEATMAPS,
    max_cells: int = MAX_HEATMAP_CELLS,
) -> dict[str, Any]:
    """``marginals``, ``heatmaps``, ``heatmapsTruncated`` and ``rowsAnalysed`` (wire names).

    ``ranks[r, j]`` is row ``r``'s position on axis ``j`` in value order.

    >>> axes = [SensitivityAxis.listed("a", [1, 2]), SensitivityAxis.listed("b", [True])]
    >>> out = sensitivity(axes, np.array([[0, 0], [1, 0], [1, 0]]), np.array([1.0, 2.0, 4.0]),
    ...                   np.array([False, False, True]), Objective.SHARPE)
    >>> out["rowsAnalysed"], out["marginals"][0]["points"][1]
    (2, {'value': 2, 'count': 1, 'best': 2.0, 'mean': 2.0, 'worst': 2.0})
    """
    live = ~np.asarray(aborted, dtype=bool)
    r = np.asarray(ranks, dtype=np.int64)[live]
    v = np.asarray(values, dtype=np.float64)[live]
    marginals = []
    for j, axis in enumerate(axes):
        g = group_stats(r[:, j], v, objective) if v.size else None
        points = (
            []
            if g is None
            else [{"value": axis.value_at(int(k)), **_figures(g, i)} for i, k in enumerate(g.keys)]
        )
        marginals.append({"param": axis.name, "points": points})
    heatmaps: list[dict[str, Any]] = []
    truncated = False
    cells_used = 0
    for a in range(len(axes)):
        for b in range(a + 1, len(axes)):
            if truncated:
                break
            cells = _cells(axes[a], axes[b], r[:, a], r[:, b], v, objective)
            if len(heatmaps) >= max_heatmaps or cells_used + len(cells) > max_cells:
                truncated = True
                break
            cells_used += len(cells)
            heatmaps.append({"paramA": axes[a].name, "paramB": axes[b].name, "cells": cells})
    return {
        "rowsAnalysed": int(v.size),
        "marginals": marginals,
        "heatmaps": heatmaps,
        "heatmapsTruncated": truncated,
    }


def _cells(
    axis_a: SensitivityAxis,
    axis_b: SensitivityAxis,
    ra: I64,
    rb: I64,
    v: F64,
    objective: Objective,
) -> list[dict[str, Any]]:
    if v.size == 0:
        return []
    ua, ca = np.unique(ra, return_inverse=True)  # dense codes keep value order and fit int64
    ub, cb = np.unique(rb, return_inverse=True)
    width = int(ub.size)
    g = group_stats(ca.astype(np.int64) * width + cb, v, objective)
    return [
        {
            "valueA": axis_a.value_at(int(ua[int(k) // width])),
            "valueB": axis_b.value_at(int(ub[int(k) % width])),
            **_figures(g, i),
        }
        for i, k in enumerate(g.keys)
    ]
