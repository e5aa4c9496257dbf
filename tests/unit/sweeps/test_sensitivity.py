"""Sensitivity marginals and heatmaps against a brute-force grouping."""

from __future__ import annotations

import doctest
import statistics
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.sweeps import sensitivity as sensitivity_module
from backtestd.sweeps.axes import PropertyType, build_axes
from backtestd.sweeps.objective import Objective
from backtestd.sweeps.samplers import grid_indices
from backtestd.sweeps.sensitivity import SensitivityAxis, sensitivity


def test_docstring_examples_run() -> None:
    assert doctest.testmod(sensitivity_module).failed == 0


def brute(keys: list[tuple], values: list[float], objective: Objective) -> dict:
    groups: dict[tuple, list[float]] = defaultdict(list)
    for k, v in zip(keys, values, strict=True):
        groups[k].append(v)
    pick_best = max if objective.higher_is_better else min
    pick_worst = min if objective.higher_is_better else max
    return {
        k: (len(vs), pick_best(vs), statistics.fmean(vs), pick_worst(vs))
        for k, vs in sorted(groups.items())
    }


@st.composite
def sweeps(draw):
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    grid = grid_indices(sizes)
    n = len(grid)
    values = draw(st.lists(st.integers(-20, 20).map(lambda x: x / 4), min_size=n, max_size=n))
    aborted = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return sizes, grid, np.array(values), np.array(aborted, dtype=bool)


@settings(max_examples=150, deadline=None)
@given(sweeps(), st.sampled_from(list(Objective)))
def test_marginals_and_heatmaps_match_brute_force(sweep, objective: Objective) -> None:
    sizes, grid, values, aborted = sweep
    axes = [
        SensitivityAxis.listed(f"p{j}", [10 * k for k in range(s)]) for j, s in enumerate(sizes)
    ]
    out = sensitivity(axes, grid, values, aborted, objective)
    live = [i for i in range(len(grid)) if not aborted[i]]
    assert out["rowsAnalysed"] == len(live)
    vals = [float(values[i]) for i in live]
    for j, marginal in enumerate(out["marginals"]):
        exp = brute([(10 * int(grid[i, j]),) for i in live], vals, objective)
        got = {
            (p["value"],): (p["count"], p["best"], p["mean"], p["worst"])
            for p in marginal["points"]
        }
        assert list(got) == list(exp)
        for k in exp:
            assert got[k][:2] == exp[k][:2]
            assert got[k][3] == exp[k][3]
            assert got[k][2] == pytest.approx(exp[k][2])
    d = len(sizes)
    assert len(out["heatmaps"]) == d * (d - 1) // 2
    assert out["heatmapsTruncated"] is False
    pairs = [(a, b) for a in range(d) for b in range(a + 1, d)]
    for (a, b), hm in zip(pairs, out["heatmaps"], strict=True):
        assert (hm["paramA"], hm["paramB"]) == (f"p{a}", f"p{b}")
        exp = brute([(10 * int(grid[i, a]), 10 * int(grid[i, b])) for i in live], vals, objective)
        got = {
            (c["valueA"], c["valueB"]): (c["count"], c["best"], c["mean"], c["worst"])
            for c in hm["cells"]
        }
        assert list(got) == list(exp)
        for k in exp:
            assert got[k][2] == pytest.approx(exp[k][2])
            assert (got[k][0], got[k][1], got[k][3]) == (exp[k][0], exp[k][1], exp[k][3])


def test_maxdd_best_is_the_smallest_drawdown() -> None:
    axes = [SensitivityAxis.listed("a", [1])]
    out = sensitivity(
        axes, np.array([[0], [0]]), np.array([3.0, 7.0]), np.zeros(2, bool), Objective.MAXDD
    )
    assert out["marginals"][0]["points"] == [
        {"value": 1, "count": 2, "best": 3.0, "mean": 5.0, "worst": 7.0}
    ]


def test_heatmaps_are_capped_and_flagged_while_marginals_stay_complete() -> None:
    grid = grid_indices([2, 2, 2, 2])  # 4 axes -> 6 heatmaps of 4 cells
    axes = [SensitivityAxis.listed(n, [0, 1]) for n in "abcd"]
    vals = np.arange(16, dtype=float)
    out = sensitivity(axes, grid, vals, np.zeros(16, bool), Objective.SHARPE, max_heatmaps=4)
    assert len(out["heatmaps"]) == 4
    assert out["heatmapsTruncated"] is True
    assert len(out["marginals"]) == 4
    out = sensitivity(axes, grid, vals, np.zeros(16, bool), Objective.SHARPE, max_cells=9)
    assert len(out["heatmaps"]) == 2
    assert out["heatmapsTruncated"] is True


def test_no_finished_rows_gives_empty_tables() -> None:
    axes = [SensitivityAxis.listed("a", [1, 2]), SensitivityAxis.listed("b", [1])]
    out = sensitivity(
        axes, np.zeros((0, 2), dtype=np.int64), np.zeros(0), np.zeros(0, bool), Objective.PNL
    )
    assert out["rowsAnalysed"] == 0
    assert out["marginals"] == [{"param": "a", "points": []}, {"param": "b", "points": []}]
    assert out["heatmaps"] == [{"paramA": "a", "paramB": "b", "cells": []}]


def test_random_sweep_over_huge_lattices_groups_only_present_values() -> None:
    big = build_axes(
        {"a": {"from": 0, "to": 1e10, "step": 1}, "b": {"values": [0.5, -1.0]}},
        {"a": PropertyType.LONG, "b": PropertyType.DOUBLE},
    )
    axes = [SensitivityAxis.from_axis(a) for a in big]
    ranks = np.array([[10**10, 1], [7, 0], [10**10, 0]])  # b ranks: -1.0 -> 0, 0.5 -> 1
    out = sensitivity(axes, ranks, np.array([1.0, 2.0, 3.0]), np.zeros(3, bool), Objective.PNL)
    assert [p["value"] for p in out["marginals"][0]["points"]] == [7, 10**10]
    assert [p["value"] for p in out["marginals"][1]["points"]] == [-1.0, 0.5]
    cells = [(c["valueA"], c["valueB"], c["count"]) for c in out["heatmaps"][0]["cells"]]
    assert cells == [(7, -1.0, 1), (10**10, -1.0, 1), (10**10, 0.5, 1)]
