"""The kernels together, as the sweep service will chain them, on the issue's benchmark grid."""

from __future__ import annotations

import numpy as np

from backtestd.sweeps.axes import PropertyType, build_axes, vector
from backtestd.sweeps.objective import Objective
from backtestd.sweeps.ranking import plateau, plateau_order, ranked_view, value_ranks
from backtestd.sweeps.samplers import Sampler, sample_indices
from backtestd.sweeps.sensitivity import SensitivityAxis, sensitivity


def test_sma_grid_expands_ranks_and_summarises() -> None:
    axes = build_axes(
        {"slow": {"from": 20, "to": 200, "step": 20}, "fast": {"from": 5, "to": 50, "step": 5}},
        {"fast": PropertyType.INT, "slow": PropertyType.INT, "fee": PropertyType.DOUBLE},
    )
    idx = sample_indices(Sampler.GRID, [a.size for a in axes], samples=None, seed=0)
    vectors = [vector(axes, row) for row in idx]
    assert len(vectors) == 100
    assert vectors[0] == {"fast": 5, "slow": 20}
    assert vectors[1] == {"fast": 5, "slow": 40}  # first axis (fast) slowest
    assert vectors[99] == {"fast": 50, "slow": 200}
    # A smooth hill peaking at fast=25, slow=100, plus a lone spike at fast=5, slow=200.
    fast = np.array([v["fast"] for v in vectors], dtype=float)
    slow = np.array([v["slow"] for v in vectors], dtype=float)
    sharpe = 2.0 - ((fast - 25) / 25) ** 2 - ((slow - 100) / 100) ** 2
    spike = next(i for i, v in enumerate(vectors) if v == {"fast": 5, "slow": 200})
    sharpe[spike] = 5.0
    aborted = np.zeros(100, dtype=bool)
    ranks = value_ranks(axes, idx)
    p = plateau(ranks, sharpe, aborted, Objective.SHARPE)
    view = ranked_view(plateau_order(sharpe, aborted, Objective.SHARPE, p), limit=3)
    assert vectors[int(view.positions[0])] == {"fast": 25, "slow": 100}
    assert int(p.neighbour_count[int(view.positions[0])]) == 4
    assert spike not in view.positions.tolist()
    out = sensitivity(
        [SensitivityAxis.from_axis(a) for a in axes], ranks, sharpe, aborted, Objective.SHARPE
    )
    assert [pt["value"] for pt in out["marginals"][0]["points"]] == list(range(5, 55, 5))
    assert len(out["heatmaps"][0]["cells"]) == 100
    assert out["marginals"][0]["points"][0]["best"] == 5.0
