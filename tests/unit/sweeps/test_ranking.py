"""Plateau and raw ranking against a brute-force reference; ranked view truncation."""

from __future__ import annotations

import doctest
import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.sweeps import objective as objective_module
from backtestd.sweeps import ranking
from backtestd.sweeps.axes import Axis, PropertyType
from backtestd.sweeps.objective import Objective
from backtestd.sweeps.ranking import (
    Ranking,
    effective_ranking,
    plateau,
    plateau_order,
    ranked_view,
    raw_order,
    value_ranks,
)
from backtestd.sweeps.samplers import grid_indices


def test_docstring_examples_run() -> None:
    assert doctest.testmod(ranking).failed == 0
    assert doctest.testmod(objective_module).failed == 0


def brute_plateau(points, values, aborted, objective):
    """Per row: (worst objective over itself + axis-adjacent live rows, neighbour count)."""
    better = (lambda a, b: a > b) if objective.higher_is_better else (lambda a, b: a < b)
    out = []
    for i, p in enumerate(points):
        if aborted[i]:
            out.append(None)
            continue
        worst, count = values[i], 0
        for k, q in enumerate(points):
            if k == i or aborted[k]:
                continue
            diff = [abs(a - b) for a, b in zip(p, q, strict=True)]
            if sorted(diff)[-1] == 1 and sum(diff) == 1:
                count += 1
                if better(worst, values[k]):
                    worst = values[k]
        out.append((worst, count))
    return out


@st.composite
def sweeps(draw):
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    grid = grid_indices(sizes)
    keep = draw(st.lists(st.booleans(), min_size=len(grid), max_size=len(grid)))
    rows = grid[np.array(keep, dtype=bool)] if any(keep) else grid[:1]
    n = len(rows)
    values = draw(st.lists(st.integers(-5, 5).map(float), min_size=n, max_size=n))
    aborted = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return rows, np.array(values), np.array(aborted, dtype=bool)


@settings(max_examples=200, deadline=None)
@given(sweeps(), st.sampled_from(list(Objective)))
def test_plateau_matches_brute_force(sweep, objective: Objective) -> None:
    rows, values, aborted = sweep
    got = plateau(rows, values, aborted, objective)
    expected = brute_plateau(rows.tolist(), values.tolist(), aborted.tolist(), objective)
    for i, exp in enumerate(expected):
        if exp is None:
            assert np.isnan(got.score[i])
            assert got.neighbour_count[i] == -1
        else:
            assert (got.score[i], got.neighbour_count[i]) == exp


def test_plateau_prefers_the_broad_hill_over_the_lone_spike() -> None:
    # 1-D: a spike of 9 between zeros, and a plateau of 5s.
    values = np.array([0.0, 9.0, 0.0, 5.0, 5.0, 5.0, 0.0])
    ranks = np.arange(7)[:, None]
    none = np.zeros(7, dtype=bool)
    p = plateau(ranks, values, none, Objective.SHARPE)
    assert p.score.tolist() == [0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0]
    assert plateau_order(values, none, Objective.SHARPE, p)[0] == 4
    assert raw_order(values, none, Objective.SHARPE)[0] == 1


def test_maxdd_plateau_reports_the_largest_drawdown_and_ranks_small_first() -> None:
    dd = np.array([10.0, 2.0, 3.0])
    ranks = np.arange(3)[:, None]
    none = np.zeros(3, dtype=bool)
    p = plateau(ranks, dd, none, Objective.MAXDD)
    assert p.score.tolist() == [10.0, 10.0, 3.0]
    assert plateau_order(dd, none, Objective.MAXDD, p).tolist() == [2, 1, 0]
    assert raw_order(dd, none, Objective.MAXDD).tolist() == [1, 2, 0]


def test_grid_interior_point_has_two_neighbours_per_axis() -> None:
    rows = grid_indices([3, 3, 3])
    p = plateau(rows, np.zeros(27), np.zeros(27, dtype=bool), Objective.PNL)
    assert p.neighbour_count[13] == 6
    assert p.neighbour_count[0] == 3


def test_unsorted_value_list_uses_value_order_for_neighbours() -> None:
    # values listed [20, 10, 30]: 10 and 30 are both neighbours of 20, not of each other.
    idx = np.array([[0], [1], [2]])
    r = value_ranks([Axis.from_wire("n", {"values": [20, 10, 30]}, PropertyType.INT)], idx)
    p = plateau(r, np.array([5.0, 1.0, 2.0]), np.zeros(3, dtype=bool), Objective.SHARPE)
    assert p.neighbour_count.tolist() == [2, 1, 1]
    assert p.score.tolist() == [1.0, 1.0, 2.0]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3).map(float), st.booleans()), min_size=1, max_size=30),
    st.sampled_from(list(Objective)),
)
def test_raw_order_matches_sorting_by_objective_then_run(rows, objective: Objective) -> None:
    values = np.array([v for v, _ in rows])
    aborted = np.array([a for _, a in rows], dtype=bool)
    sign = -1.0 if objective.higher_is_better else 1.0
    expected = sorted(
        (i for i in range(len(rows)) if not aborted[i]), key=lambda i: (sign * values[i], i)
    )
    assert raw_order(values, aborted, objective).tolist() == expected


def test_ranked_view_ranks_from_one_and_truncates_at_the_limit() -> None:
    order = np.arange(250)[::-1]
    view = ranked_view(order)
    assert view.positions.size == 100
    assert view.rank.tolist() == list(range(1, 101))
    assert view.truncated
    assert not ranked_view(order[:100]).truncated


def test_effective_ranking() -> None:
    kw = {"natural": False, "walk_forward": False}
    assert effective_ranking(Ranking.PLATEAU, has_grid=True, **kw) is Ranking.PLATEAU
    assert effective_ranking(Ranking.PLATEAU, has_grid=False, **kw) is Ranking.RAW
    assert effective_ranking(Ranking.RAW, has_grid=True, **kw) is Ranking.RAW
    assert (
        effective_ranking(Ranking.PLATEAU, has_grid=True, natural=True, walk_forward=False)
        is Ranking.RAW
    )
    assert (
        effective_ranking(Ranking.PLATEAU, has_grid=True, natural=False, walk_forward=True)
        is Ranking.RAW
    )


def test_plateau_of_an_all_aborted_sweep_is_empty() -> None:
    p = plateau(np.array([[0], [1]]), np.array([1.0, 2.0]), np.ones(2, bool), Objective.SHARPE)
    assert np.isnan(p.score).all()
    assert raw_order(np.array([1.0, 2.0]), np.ones(2, bool), Objective.SHARPE).size == 0


def test_brute_force_reference_itself_on_a_hand_case() -> None:
    pts = [list(p) for p in itertools.product(range(2), range(2))]
    got = brute_plateau(pts, [1.0, 2.0, 3.0, 4.0], [False] * 4, Objective.SHARPE)
    assert got == [(1.0, 2), (1.0, 2), (1.0, 2), (2.0, 2)]
