"""A shard builds a trial's equity curve only when the trial may enter its best ``keep``
(``may_keep``); the curves it ends with are the ones building every curve would keep."""

from __future__ import annotations

from functools import partial

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from backtestd.domain.sweeps import Objective, SweepMetrics, SweepRow
from backtestd.jobs.handlers.sweep import PendingCurve, Trial, keep_best, may_keep, shard_best


def _row(run_ix: int, value: float, trades: int = 1, aborted: bool = False) -> SweepRow:
    return SweepRow(
        sweep_id="swp_x",
        run_ix=run_ix,
        params={},
        metrics=SweepMetrics(value, value, value, 0.0, 0.0, value, trades, 0.0),
        aborted=aborted,
        runtime_ms=0,
    )


def _trial(run_ix: int, value: float, with_curve: bool) -> Trial:
    curve = PendingCurve(np.array([0]), np.array([value]), None) if with_curve else None
    return Trial(_row(run_ix, value), value, curve)


def _retained(
    objective: Objective, values: list[float], keep: int, batch: int, lazy: bool
) -> set[int]:
    """Run the shard's bookkeeping over ``values`` in batches; the run indices left with a curve."""
    kept: list[tuple[float, int]] = []
    stored: set[int] = set()
    for at in range(0, len(values), batch):
        rule = partial(may_keep, objective, list(kept), keep)  # as of the batch's start
        trials = [
            _trial(ix, values[ix], (not lazy or rule(values[ix], ix)) and keep > 0)
            for ix in range(at, min(at + batch, len(values)))
        ]
        for trial in trials:
            if trial.curve is not None:
                stored.add(trial.row.run_ix)
            stored -= set(keep_best(objective, kept, trial, keep))
        # A resumed shard finds the same best from its stored rows alone.
        rows = [_row(ix, values[ix]) for ix in range(min(at + batch, len(values)))]
        assert shard_best(objective, rows, keep) == kept
    return stored


@given(
    values=st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0]), max_size=40),
    keep=st.integers(0, 6),
    batch=st.integers(1, 9),
    objective=st.sampled_from(list(Objective)),
)
def test_building_only_curves_that_may_be_kept_keeps_the_same_curves(
    values: list[float], keep: int, batch: int, objective: Objective
) -> None:
    eager = _retained(objective, values, keep, batch, lazy=False)
    lazy = _retained(objective, values, keep, batch, lazy=True)

    assert lazy == eager
    assert len(eager) == min(keep, len(values))


def test_a_full_top_set_refuses_a_worse_trial_and_admits_a_better_one() -> None:
    kept = [(3.0, 4), (1.0, 2)]  # best first

    assert not may_keep(Objective.SHARPE, kept, 2, 0.5, 9)
    assert not may_keep(Objective.SHARPE, kept, 2, 1.0, 3)  # a tie loses to the lower runIx
    assert may_keep(Objective.SHARPE, kept, 2, 1.0, 1)
    assert may_keep(Objective.MAXDD, [(1.0, 2), (3.0, 4)], 2, 2.0, 9)  # smaller drawdown first
    assert not may_keep(Objective.SHARPE, [], 0, 9.0, 0)


def test_the_best_of_stored_rows_leaves_out_aborted_rows_and_rows_without_trades() -> None:
    rows = [_row(0, 5.0, trades=0), _row(1, 4.0, aborted=True), _row(2, 1.0), _row(3, 2.0)]

    assert shard_best(Objective.SHARPE, rows, 2) == [(2.0, 3), (1.0, 2)]
    assert shard_best(Objective.SHARPE, rows, 0) == []
