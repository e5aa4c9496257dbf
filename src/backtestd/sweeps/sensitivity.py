"""Sensitivity: per-axis marginals and pairwise heatmaps of the objective over finished rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from backtestd.domain.sweep_results import (
    Heatmap,
    HeatmapCell,
    Marginal,
    MarginalPoint,
    Sensitivity,
    ValueStats,
)
from backtestd.domain.sweeps import Objective, ParamScalar
from backtestd.sweeps.ranking import value_key

MAX_HEATMAPS = 45
"""At most this many axis pairs get a heatmap (10 axes); marginals are always complete."""

ValueKey = tuple[bool, ParamScalar]


def _stats(values: list[float], objective: Objective) -> ValueStats:
    best = max(values) if objective.higher_is_better else min(values)
    worst = min(values) if objective.higher_is_better else max(values)
    return ValueStats(len(values), best, sum(values) / len(values), worst)


def sensitivity(
    params: Sequence[Mapping[str, ParamScalar]],
    values: Sequence[float],
    axes: Sequence[str],
    objective: Objective,
) -> Sensitivity:
    """Marginals of every axis and heatmaps of the first ``MAX_HEATMAPS`` axis pairs; values
    sorted ascending (``false`` before ``true``).

    >>> s = sensitivity([{"a": 1, "b": 0}, {"a": 2, "b": 0}, {"a": 2, "b": 1}],
    ...                 [1.0, 3.0, 5.0], ["a", "b"], Objective.SHARPE)
    >>> s.marginals[0].points[1]
    MarginalPoint(value=2, stats=ValueStats(count=2, best=5.0, mean=4.0, worst=3.0))
    >>> len(s.heatmaps), s.heatmaps[0].cells[0].value_a, s.heatmaps_truncated
    (1, 1, False)
    """
    marginals = []
    for axis in axes:
        groups: dict[ValueKey, list[float]] = {}
        raw: dict[ValueKey, ParamScalar] = {}
        for p, v in zip(params, values, strict=True):
            k = value_key(p[axis])
            groups.setdefault(k, []).append(v)
            raw[k] = p[axis]
        points = tuple(MarginalPoint(raw[k], _stats(groups[k], objective)) for k in sorted(groups))
        marginals.append(Marginal(axis, points))
    pairs = list(combinations(axes, 2))
    heatmaps = []
    for a, b in pairs[:MAX_HEATMAPS]:
        cells: dict[tuple[ValueKey, ValueKey], list[float]] = {}
        raw_pairs: dict[tuple[ValueKey, ValueKey], tuple[ParamScalar, ParamScalar]] = {}
        for p, v in zip(params, values, strict=True):
            cell = (value_key(p[a]), value_key(p[b]))
            cells.setdefault(cell, []).append(v)
            raw_pairs[cell] = (p[a], p[b])
        heatmaps.append(
            Heatmap(
                a,
                b,
                tuple(
                    HeatmapCell(*raw_pairs[cell], _stats(cells[cell], objective))
                    for cell in sorted(cells)
                ),
            )
        )
    return Sensitivity(tuple(marginals), tuple(heatmaps), len(pairs) > MAX_HEATMAPS)
