"""Leaderboard orderings: raw (by the objective) and plateau (by the worst of a neighbourhood)."""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Any

from backtestd.domain.sweeps import Objective, SweepRow


def rank_order(values: Sequence[float | None], objective: Objective) -> list[int]:
    """Indices best first; ``None`` (aborted) last; ties by index (i.e. by ``runIx``).

    >>> rank_order([1.0, None, 3.0, 2.0], Objective.SHARPE)
    [2, 3, 0, 1]
    >>> rank_order([5.0, 1.0, 3.0], Objective.MAXDD)
    [1, 2, 0]
    """
    sign = -1.0 if objective.higher_is_better else 1.0

    def key(i: int) -> tuple[int, float, int]:
        v = values[i]
        return (1, 0.0, i) if v is None else (0, sign * v, i)

    return sorted(range(len(values)), key=key)


def plateau_scores(
    values: Sequence[float | None],
    coords: Sequence[tuple[int, ...]],
    shape: tuple[int, ...],
    objective: Objective,
) -> tuple[list[float | None], list[int]]:
    """Per row: the worst objective among itself and its finished axis-adjacent neighbours.

    The neighbourhood of a grid point is the points one lattice step away along exactly one
    axis (up to ``2 * axes`` points). Neighbours that are aborted or not finished yet are not
    counted; ``neighbourCount`` says how many were. Aborted rows get no score.

    >>> plateau_scores([1.0, 3.0, 2.0], [(0,), (1,), (2,)], (3,), Objective.SHARPE)
    ([1.0, 1.0, 2.0], [1, 2, 1])
    """
    at = {c: v for c, v in zip(coords, values, strict=True) if v is not None}
    scores: list[float | None] = []
    counts: list[int] = []
    worse = min if objective.higher_is_better else max
    for c, v in zip(coords, values, strict=True):
        if v is None:
            scores.append(None)
            counts.append(0)
            continue
        found = []
        for axis in range(len(shape)):
            for delta in (-1, 1):
                n = list(c)
                n[axis] += delta
                neighbour = at.get(tuple(n))
                if neighbour is not None:
                    found.append(neighbour)
        scores.append(worse([v, *found]))
        counts.append(len(found))
    return scores, counts


def value_key(value: Any) -> tuple[bool, Any]:
    """A lattice value as a dictionary key that keeps ``True`` apart from ``1`` (and ``False``
    from ``0``), which Python's equality would merge.

    >>> value_key(True) == value_key(1)
    False
    """
    return (type(value) is bool, value)


def value_positions(values: Sequence[Any]) -> dict[tuple[bool, Any], int]:
    """Each lattice value's position in ascending value order (``false`` before ``true``).

    Plateau neighbours are adjacent *values*, whatever order a ``values`` list was given in:
    ``[10, 50, 20]`` makes 20 the neighbour of both 10 and 50.

    >>> value_positions([10, 50, 20])
    {(False, 10): 0, (False, 20): 1, (False, 50): 2}
    """
    keys = sorted({value_key(v) for v in values})
    return {k: i for i, k in enumerate(keys)}


def selected_curves(
    rows: Sequence[SweepRow], curve_ixs: Set[int], objective: Objective, keep: int
) -> set[int]:
    """Trials whose curve is served: the best ``keep`` by ``objective`` among the finished rows
    that still hold a curve (``curve_ixs``)."""
    candidates = [r for r in rows if not r.aborted and r.run_ix in curve_ixs]
    order = rank_order([objective.score(r.metrics) for r in candidates], objective)
    return {candidates[i].run_ix for i in order[:keep]}
