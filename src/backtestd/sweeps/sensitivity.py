"""Sensitivity: per-axis marginals and pairwise heatmaps of the objective over finished rows."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from backtestd.domain.sweeps import Objective
from backtestd.sweeps.ranking import value_key

MAX_HEATMAPS = 45
"""At most this many axis pairs get a heatmap (10 axes); marginals are always complete."""


def _stats(values: list[float], objective: Objective) -> dict[str, float | int]:
    best = max(values) if objective.higher_is_better else min(values)
    worst = min(values) if objective.higher_is_better else max(values)
    return {"count": len(values), "best": best, "mean": sum(values) / len(values), "worst": worst}


def sensitivity(
    params: Sequence[dict[str, Any]],
    values: Sequence[float],
    axes: Sequence[str],
    objective: Objective,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
    """``(marginals, heatmaps, heatmapsTruncated)`` in wire shape; values sorted ascending.

    >>> m, h, t = sensitivity([{"a": 1, "b": 0}, {"a": 2, "b": 0}, {"a": 2, "b": 1}],
    ...                       [1.0, 3.0, 5.0], ["a", "b"], Objective.SHARPE)
    >>> m[0]["points"][1]
    {'value': 2, 'count': 2, 'best': 5.0, 'mean': 4.0, 'worst': 3.0}
    >>> len(h), h[0]["cells"][0]["valueA"], t
    (1, 1, False)
    """
    marginals = []
    for axis in axes:
        groups: dict[tuple[bool, Any], list[float]] = {}
        raw: dict[tuple[bool, Any], Any] = {}
        for p, v in zip(params, values, strict=True):
            k = value_key(p[axis])
            groups.setdefault(k, []).append(v)
            raw[k] = p[axis]
        points = [{"value": raw[k], **_stats(groups[k], objective)} for k in sorted(groups)]
        marginals.append({"param": axis, "points": points})
    pairs = list(combinations(axes, 2))
    heatmaps = []
    for a, b in pairs[:MAX_HEATMAPS]:
        cells: dict[tuple[Any, Any], list[float]] = {}
        raw_pairs: dict[tuple[Any, Any], tuple[Any, Any]] = {}
        for p, v in zip(params, values, strict=True):
            cell = (value_key(p[a]), value_key(p[b]))
            cells.setdefault(cell, []).append(v)
            raw_pairs[cell] = (p[a], p[b])
        heatmaps.append(
            {
                "paramA": a,
                "paramB": b,
                "cells": [
                    {
                        "valueA": raw_pairs[cell][0],
                        "valueB": raw_pairs[cell][1],
                        **_stats(cells[cell], objective),
                    }
                    for cell in sorted(cells)
                ],
            }
        )
    return marginals, heatmaps, len(pairs) > MAX_HEATMAPS
