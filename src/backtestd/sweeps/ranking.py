"""Leaderboard ordering: raw ranking, plateau ranking and the truncated ranked view.

Rows are given as arrays: ``ranks`` (``(n, d)`` int, each row's position on each axis *in value
order*, see :meth:`Axis.order_ranks`), ``values`` (the objective in its own units) and
``aborted``. Aborted rows take no part: they get no plateau score, are nobody's neighbour, and are
left out of the ranked view (the natural view still lists them).

Plateau: the neighbours of a row are the finished, non-aborted rows one step away on exactly one
axis (``±1`` in value order, all other axes equal): at most ``2 d`` in ``d`` dimensions, fewer at
the lattice edge or while the sweep runs. ``plateauScore`` is the objective of the worst row among
the row itself and its neighbours (for ``maxdd``: the largest drawdown), and ``neighbourCount``
how many neighbours it has (0: the score is unevidenced). Ordered by plateau score, then by the
row's own objective, then ``runIx``; raw ranking orders by the objective, then ``runIx``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from backtestd.sweeps.axes import Axis
from backtestd.sweeps.objective import Objective

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
BOOL = npt.NDArray[np.bool_]

RANKED_DISPLAY_LIMIT = 100  # rows in the ranked view; ``truncated`` says when more exist


class Ranking(enum.StrEnum):
    PLATEAU = "plateau"
    RAW = "raw"


@dataclass(frozen=True)
class Plateau:
    """Per-row plateau figures; NaN score and -1 count on aborted rows."""

    score: F64
    neighbour_count: I64


def plateau(ranks: I64, values: F64, aborted: BOOL, objective: Objective) -> Plateau:
    """Plateau score and neighbour count of each row.

    >>> ranks = np.array([[0], [1], [2]])
    >>> p = plateau(ranks, np.array([1.0, 3.0, 2.0]), np.zeros(3, bool), Objective.SHARPE)
    >>> p.score.tolist(), p.neighbour_count.tolist()
    ([1.0, 1.0, 2.0], [1, 2, 1])
    """
    n, d = ranks.shape
    oriented = objective.oriented(values)
    score = np.full(n, np.nan)
    count = np.full(n, -1, dtype=np.int64)
    live = np.flatnonzero(~np.asarray(aborted, dtype=bool))
    if live.size == 0:
        return Plateau(score, count)
    r = ranks[live].astype(np.int64)
    span = r.max(axis=0) + 3  # room for -1 and +1 around every rank
    if np.prod(span.astype(np.float64)) >= 2.0**62:
        raise ValueError("plateau needs a grid; this lattice is too large to key (use raw)")
    strides = np.cumprod(np.concatenate([[1], span[::-1][:-1]]))[::-1].astype(np.int64)
    keys = (r + 1) @ strides
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if np.any(np.diff(sorted_keys) == 0):
        raise ValueError("two rows share one lattice point")
    worst = oriented[live].copy()
    found = np.zeros(live.size, dtype=np.int64)
    for j in range(d):
        for delta in (-1, 1):
            probe = keys + delta * strides[j]
            pos = np.clip(np.searchsorted(sorted_keys, probe), 0, live.size - 1)
            hit = sorted_keys[pos] == probe
            other = live[order[pos[hit]]]
            worst[hit] = np.minimum(worst[hit], oriented[other])
            found[hit] += 1
    score[live] = worst if objective.higher_is_better else -worst
    count[live] = found
    return Plateau(score, count)


def raw_order(values: F64, aborted: BOOL, objective: Objective) -> I64:
    """Row positions of the non-aborted rows, best objective first (ties: lower row first).

    >>> raw_order(np.array([1.0, 3.0, 2.0]), np.array([False, False, True]), Objective.PNL).tolist()
    [1, 0]
    """
    live = np.flatnonzero(~np.asarray(aborted, dtype=bool))
    oriented = objective.oriented(values)[live]
    return live[np.lexsort((live, -oriented))].astype(np.int64)


def plateau_order(values: F64, aborted: BOOL, objective: Objective, result: Plateau) -> I64:
    """Non-aborted rows by plateau score, then own objective, then position (best first).

    >>> p = Plateau(np.array([1.0, 1.0, 2.0]), np.array([1, 2, 1]))
    >>> plateau_order(np.array([1.0, 3.0, 2.0]), np.zeros(3, bool), Objective.SHARPE, p).tolist()
    [2, 1, 0]
    """
    live = np.flatnonzero(~np.asarray(aborted, dtype=bool))
    own = objective.oriented(values)[live]
    plat = objective.oriented(result.score)[live]
    return live[np.lexsort((live, -own, -plat))].astype(np.int64)


def effective_ranking(
    requested: Ranking, *, has_grid: bool, natural: bool, walk_forward: bool
) -> Ranking:
    """The ordering actually used: plateau needs a stored grid and the ranked view.

    ``random``/``lhs`` sweeps have no grid (their points are scattered), so they rank raw;
    so does every walk-forward sweep and the natural view.

    >>> effective_ranking(Ranking.PLATEAU, has_grid=False, natural=False, walk_forward=False)
    <Ranking.RAW: 'raw'>
    """
    if requested is Ranking.PLATEAU and has_grid and not natural and not walk_forward:
        return Ranking.PLATEAU
    return Ranking.RAW


@dataclass(frozen=True)
class RankedView:
    """Rows to show (positions, best first), their 1-based ``rank`` and the ``truncated`` flag."""

    positions: I64
    rank: I64
    truncated: bool


def ranked_view(order: I64, limit: int = RANKED_DISPLAY_LIMIT) -> RankedView:
    """The first ``limit`` rows of ``order`` with ranks ``1..``.

    >>> v = ranked_view(np.array([4, 2, 7]), limit=2)
    >>> v.positions.tolist(), v.rank.tolist(), v.truncated
    ([4, 2], [1, 2], True)
    """
    if limit < 1:
        raise ValueError("display limit must be at least 1")
    shown = order[:limit]
    return RankedView(shown, np.arange(1, shown.size + 1, dtype=np.int64), order.size > limit)


def value_ranks(axes: Sequence[Axis], indices: I64) -> I64:
    """Lattice indices (``(n, d)``) mapped to value-order ranks, axis by axis.

    >>> from backtestd.sweeps.axes import PropertyType
    >>> ax = [Axis.from_wire("x", {"values": [20, 10, 30]}, PropertyType.INT)]
    >>> value_ranks(ax, np.array([[0], [1]])).tolist()
    [[1], [0]]
    """
    out = np.empty(indices.shape, dtype=np.int64)
    for j, axis in enumerate(axes):
        out[:, j] = axis.ranks_of(indices[:, j])
    return out
