"""The read views of a sweep on a real SQLite database, without HTTP: the leaderboard a user
reads (ranked raw or by plateau, natural order, truncation, the trade floor), progress while
shards run, DSR and PBO, walk-forward folds, sensitivity and a trial's curve. Sweeps and their
rows are written through the repositories (``tests/support/sweeps.py``), then read through the
real ``SweepService.view`` and ``services/sweep_views.py``."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from backtestd.api.schemas.sweeps import ExecuteSweepResult, SweepSensitivity
from backtestd.domain.accounts import Principal
from backtestd.domain.equity import OutMode
from backtestd.domain.jobs import JobStatus
from backtestd.domain.sweep_results import SweepResult
from backtestd.domain.sweeps import (
    CurveMode,
    CurvePrefs,
    FoldOutcome,
    LeaderboardOrder,
    Objective,
    Ranking,
    SweepStatus,
    WalkForward,
)
from backtestd.errors import NotFound
from backtestd.services import sweep_views
from backtestd.services.container import Services
from backtestd.services.sweeps import SweepView
from backtestd.settings import Settings
from backtestd.sweeps.statistics import deflated_sharpe_ratios, probability_of_overfitting
from tests.support.sweeps import T0, SweepFixture, add_strategy, metrics, sweep_services

ALICE = Principal("views-alice", "pro")
NOW = T0 + timedelta(seconds=60)
RAW, PLATEAU = Ranking.RAW, Ranking.PLATEAU
RANKED, NATURAL = LeaderboardOrder.RANKED, LeaderboardOrder.NATURAL


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    with sweep_services(Settings(data_dir=tmp_path)) as built:
        yield built


def _view(services: Services, sweep: SweepFixture, curves: bool = True) -> SweepView:
    return services.sweeps.view(
        ALICE, "sim", "ticker", sweep.request_id, sweep.sweep_id, with_curve_metas=curves
    )


def _result(
    services: Services,
    sweep: SweepFixture,
    order: LeaderboardOrder = RANKED,
    ranking: Ranking = RAW,
    objective: Objective = Objective.SHARPE,
    limit: int = 100,
) -> SweepResult:
    return sweep_views.result(_view(services, sweep), objective, order, ranking, limit, NOW)


def _four_trials(services: Services, **options: Any) -> SweepFixture:
    """``fast`` 1..4: Sharpe 0.5, 2.0 (10 trades, below the floor of 30), aborted, 1.5."""
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2, 3, 4])], **options)
    sweep.add_rows(
        sweep.row(0, {"fast": 1}, metrics(0.5, max_dd_pct=9.0), curve=True),
        sweep.row(1, {"fast": 2}, metrics(2.0, trades=10, max_dd_pct=4.0), curve=True),
        sweep.row(2, {"fast": 3}, metrics(0.0, trades=0, max_dd_pct=0.0), aborted=True),
        sweep.row(3, {"fast": 4}, metrics(1.5, max_dd_pct=6.0), curve=True),
    )
    return sweep


def test_raw_ranking_puts_the_best_objective_first_and_aborted_trials_last(
    services: Services,
) -> None:
    sweep = _four_trials(services)

    board = _result(services, sweep).board

    assert [(r.rank, r.run_ix, r.metrics.sharpe) for r in board.rows] == [
        (1, 1, 2.0),
        (2, 3, 1.5),
        (3, 0, 0.5),
        (4, 2, 0.0),
    ]
    assert [r.below_trade_floor for r in board.rows] == [True, False, False, True]
    assert [r.aborted for r in board.rows] == [False, False, False, True]
    assert board.ranking is RAW
    assert board.size == 4
    assert not board.truncated


def test_maxdd_ranks_the_smallest_drawdown_first(services: Services) -> None:
    sweep = _four_trials(services)

    board = _result(services, sweep, objective=Objective.MAXDD).board

    assert [(r.run_ix, r.metrics.max_dd_pct) for r in board.rows] == [
        (1, 4.0),
        (3, 6.0),
        (0, 9.0),
        (2, 0.0),  # aborted: last, whatever its figure
    ]


def test_plateau_ranking_scores_each_trial_by_its_worst_finished_neighbour(
    services: Services,
) -> None:
    sweep = _four_trials(services)

    board = _result(services, sweep, ranking=PLATEAU, limit=2).board

    # fast=2 (2.0) sits next to fast=1 (0.5): its plateau is 0.5; fast=4 (1.5) has only the
    # aborted fast=3 beside it, so it stands alone and leads.
    assert [(r.run_ix, r.plateau_score, r.neighbour_count) for r in board.rows] == [
        (3, 1.5, 0),
        (0, 0.5, 1),
    ]
    assert [r.rank for r in board.rows] == [1, 2]
    assert board.ranking is PLATEAU
    assert board.truncated
    assert board.size == 4


def test_natural_order_lists_every_trial_by_run_index_without_ranks(services: Services) -> None:
    sweep = _four_trials(services)

    board = _result(services, sweep, order=NATURAL, ranking=PLATEAU, limit=1).board

    assert [r.run_ix for r in board.rows] == [0, 1, 2, 3]
    assert all(r.rank is None and r.plateau_score is None for r in board.rows)
    assert board.ranking is RAW
    assert not board.truncated


def test_progress_counts_rows_and_shards_and_estimates_the_rest(services: Services) -> None:
    sweep = _four_trials(services, shards=3, size=8)
    sweep.start_shard(0, T0)
    sweep.start_shard(1, T0 + timedelta(seconds=10))
    sweep.start_shard(1, T0 + timedelta(seconds=40))  # a retry: its first start time stays

    progress = _result(services, sweep).progress

    assert (progress.done, progress.total, progress.aborted) == (4, 8, 1)
    assert (progress.shard_count, progress.pending_shards, progress.not_started) == (3, 3, 1)
    assert (progress.failed_shards, progress.retrying) == (0, 1)
    assert progress.stalled_seconds == 50  # since the last shard started
    assert progress.eta_seconds == 60  # 60 s for 4 rows, 4 to go


def test_a_finished_sweep_has_no_estimate_and_reports_a_failed_shard(services: Services) -> None:
    sweep = _four_trials(services, shards=2)
    sweep.start_shard(0, T0)
    sweep.end_shard(0, JobStatus.COMPLETED, T0 + timedelta(seconds=5))
    sweep.end_shard(1, JobStatus.FAILED, T0 + timedelta(seconds=6), "internal error: x")

    result = _result(services, sweep)

    assert result.status is SweepStatus.PARTIAL
    assert result.progress.failed_shards == 1
    assert result.progress.pending_shards == 0
    assert result.progress.stalled_seconds is None
    assert result.progress.eta_seconds is None
    assert result.job.status is JobStatus.COMPLETED
    assert result.completed == 4


def _returns(seed: int, skill: float) -> tuple[float, ...]:
    rng = np.random.default_rng(seed)
    return tuple(round(float(x), 15) for x in rng.normal(skill, 0.01, 20))


def test_dsr_is_shown_while_running_and_pbo_once_the_sweep_is_finished(
    services: Services,
) -> None:
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2, 3, 4])], shards=1)
    returns = [_returns(n, 0.002 * n) for n in range(3)]
    sweep.add_rows(
        *(sweep.row(n, {"fast": n + 1}, metrics(float(n)), returns=returns[n]) for n in range(3)),
        sweep.row(3, {"fast": 4}, metrics(0.0), aborted=True),
    )
    arrays = [np.asarray(r) for r in returns]
    expected_dsr = deflated_sharpe_ratios(arrays)

    running = _result(services, sweep, order=NATURAL)
    sweep.end_shard(0, JobStatus.COMPLETED, NOW)
    finished = _result(services, sweep, order=NATURAL)

    assert running.status is SweepStatus.RUNNING
    assert running.board.overfitting is None
    assert [r.deflated_sharpe for r in running.board.rows] == [*expected_dsr, None]
    assert finished.status is SweepStatus.COMPLETED
    pbo = probability_of_overfitting(np.stack(arrays, axis=1))
    assert pbo is not None
    assert finished.board.overfitting is not None
    assert (finished.board.overfitting.pbo, finished.board.overfitting.splits) == pbo
    assert finished.board.overfitting.splits == 10  # 20 days, two a block


def test_dsr_of_a_running_sweep_follows_its_rows_as_they_land(services: Services) -> None:
    """A reader keeps each row's moments (its returns never change) but deflates them against
    the benchmark of the rows stored at the time: after more rows land every DSR is as if
    computed afresh, the earlier rows' included (the benchmark moved)."""
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2, 3, 4])], shards=1)
    returns = [_returns(n, 0.002 * n) for n in range(4)]
    rows = [sweep.row(n, {"fast": n + 1}, metrics(float(n)), returns=returns[n]) for n in range(4)]
    arrays = [np.asarray(r) for r in returns]

    sweep.add_rows(*rows[:2])
    first = [r.deflated_sharpe for r in _result(services, sweep, order=NATURAL).board.rows]
    sweep.add_rows(*rows[2:])
    second = [r.deflated_sharpe for r in _result(services, sweep, order=NATURAL).board.rows]

    assert first == deflated_sharpe_ratios(arrays[:2])
    assert second == deflated_sharpe_ratios(arrays)
    assert second[:2] != first


def test_walk_forward_folds_carry_their_winner_and_the_drift_between_folds(
    services: Services,
) -> None:
    sweep = SweepFixture(
        services,
        ALICE,
        [("fast", [10, 20, 30, 40]), ("slow", [100, 200])],
        shards=3,
        walk_forward=WalkForward(3, 60),
    )
    winners = [{"fast": 10, "slow": 100}, {"fast": 30, "slow": 200}, {"fast": 40, "slow": 200}]
    sweep.add_rows(
        *(
            sweep.row(
                f,
                winners[f],
                metrics(0.25 * f),
                fold=FoldOutcome(f, 100 * f, 100 * f + 60, 100 * f + 100, winners[f], 1.0 + f, 8),
            )
            for f in range(3)
        )
    )

    result = _result(services, sweep, ranking=PLATEAU)

    walk = result.board.walk_forward
    assert walk is not None
    assert (walk.folds, walk.completed_folds, walk.in_sample_pct) == (3, 3, 60)
    assert [f.fold.params for f in walk.results] == winners
    assert [f.fold.in_sample_sharpe for f in walk.results] == [1.0, 2.0, 3.0]
    assert [f.out_of_sample.metrics.sharpe for f in walk.results] == [0.0, 0.25, 0.5]
    assert all(f.out_of_sample.rank is None for f in walk.results)
    # Winners' steps in value order, each axis over its lattice length: fold 0 -> 1 moves
    # fast 2/3 and slow 1/1, fold 1 -> 2 moves fast 1/3: mean of 5/6 and 1/6.
    assert walk.param_drift == pytest.approx(0.5)
    assert result.board.ranking is RAW  # plateau needs the full grid
    assert result.progress.total == 3
    assert result.board.overfitting is None


def test_sensitivity_groups_finished_trials_by_axis_and_axis_pair(services: Services) -> None:
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2]), ("flag", [True, False])], shards=1)
    sweep.add_rows(
        sweep.row(0, {"fast": 1, "flag": True}, metrics(1.0)),
        sweep.row(1, {"fast": 1, "flag": False}, metrics(3.0)),
        sweep.row(2, {"fast": 2, "flag": True}, metrics(-1.0)),
        sweep.row(3, {"fast": 2, "flag": False}, metrics(9.0), aborted=True),
    )

    view = sweep_views.sensitivity_view(_view(services, sweep, curves=False), Objective.PNL)

    assert view.rows_analysed == 3
    fast, flag = view.sensitivity.marginals
    assert [(p.value, p.stats.count, p.stats.mean) for p in fast.points] == [
        (1, 2, 20.0),
        (2, 1, -10.0),
    ]
    assert [(p.value, p.stats.best, p.stats.worst) for p in flag.points] == [
        (False, 30.0, 30.0),
        (True, 10.0, -10.0),
    ]
    (pair,) = view.sensitivity.heatmaps
    assert (pair.param_a, pair.param_b) == ("fast", "flag")
    assert [(c.value_a, c.value_b, c.stats.count) for c in pair.cells] == [
        (1, False, 1),
        (1, True, 1),
        (2, True, 1),
    ]
    wire = SweepSensitivity.of(view).model_dump()
    assert wire["marginals"][1]["points"][0] == {
        "value": False, "count": 1, "best": 30.0, "mean": 30.0, "worst": 30.0
    }  # fmt: skip
    assert wire["heatmaps"][0]["paramA"] == "fast"


def test_only_the_retained_trials_serve_a_curve(services: Services) -> None:
    sweep = _four_trials(services, curves=CurvePrefs(mode=CurveMode.TOP_N, n=2))

    view = _view(services, sweep)
    board = sweep_views.result(view, Objective.SHARPE, RANKED, RAW, 100, NOW).board
    curves = {r.run_ix: r.curve for r in board.rows}
    served = sweep_views.trial_curve(
        view, services.sweeps.curve_row(view, 1), None, None, OutMode.SHORT
    )
    dropped = sweep_views.trial_curve(view, services.sweeps.curve_row(view, 0), None, None, None)

    assert {ix for ix, meta in curves.items() if meta is not None} == {1, 3}
    assert served is not None
    assert served.equities == (100.0, 120.0, 99.0)  # the stored curve, pnl 20
    assert served.timestamps == (0, 60_000, 120_000)
    assert served.meta.out_mode is OutMode.SHORT
    assert dropped is None  # 0.5 is not among the best two


def test_a_second_read_sees_rows_stored_since_the_first(services: Services) -> None:
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2, 3])], shards=1)
    sweep.add_rows(sweep.row(0, {"fast": 1}, metrics(1.0)))
    first = _result(services, sweep)

    sweep.add_rows(sweep.row(1, {"fast": 2}, metrics(3.0)))
    second = _result(services, sweep)

    assert [r.run_ix for r in first.board.rows] == [0]
    assert [(r.rank, r.run_ix) for r in second.board.rows] == [(1, 1), (2, 0)]
    assert second.completed == 2


def test_another_users_sweep_is_not_found(services: Services) -> None:
    sweep = SweepFixture(services, ALICE, [("fast", [1])], shards=1)

    with pytest.raises(NotFound):
        services.sweeps.view(
            Principal("views-bob", "pro"), "sim", "ticker", sweep.request_id, sweep.sweep_id
        )
    with pytest.raises(NotFound):
        services.sweeps.view(ALICE, "sim", "ticker", "another-prepare", sweep.sweep_id)


def test_the_wire_of_a_result_names_every_figure_once_and_leaves_unset_ones_out(
    services: Services,
) -> None:
    sweep = _four_trials(services)

    wire = ExecuteSweepResult.of(_result(services, sweep)).model_dump(
        mode="json", exclude_unset=True
    )

    top = wire["leaderboard"][0]
    assert set(top) == {
        "runIx", "params", "sharpe", "sortino", "pnl", "pnlPct", "cagr", "maxDdPct", "trades",
        "winRate", "belowTradeFloor", "aborted", "runtimeMs", "rank", "equityCurve",
    }  # fmt: skip
    assert top["equityCurve"]["url"] == (
        f"/v1/backtest/sim/ticker/executeSweep/{sweep.request_id}/{sweep.sweep_id}"
        "/runs/1/equityCurve"
    )
    assert top["equityCurve"]["meta"]["outputPointCount"] == 3
    assert "equityCurve" not in wire["leaderboard"][3]  # aborted: no curve
    assert wire["baseConfig"] == {
        "initialFunding": 100.0, "buyFeeRate": 0.001, "sellFeeRate": 0.001, "feeLeg": "RECEIVED"
    }  # fmt: skip
    assert wire["state"]["completed"] == 4
    assert wire["status"] == "RUNNING"
    assert "pbo" not in wire
    assert "walkForward" not in wire
    assert "stalledSeconds" not in wire["progress"]
    assert math.isclose(wire["leaderboard"][1]["pnlPct"], 15.0)


def test_deleting_the_strategy_reclaims_its_sweeps_curves_and_keeps_their_rows(
    services: Services,
) -> None:
    add_strategy(services, ALICE, "stg_fixture", {"fast": "int"})
    sweep = _four_trials(services, curves=CurvePrefs(mode=CurveMode.TOP_N, n=2))
    before = sweep_views.result(_view(services, sweep), Objective.SHARPE, RANKED, RAW, 100, NOW)
    assert {r.run_ix for r in before.board.rows if r.curve is not None} == {1, 3}

    services.strategies.delete(ALICE, "stg_fixture")

    view = _view(services, sweep)
    after = sweep_views.result(view, Objective.SHARPE, RANKED, RAW, 100, NOW)
    assert [r.run_ix for r in after.board.rows] == [r.run_ix for r in before.board.rows]
    assert [r.curve for r in after.board.rows] == [None] * 4
    assert (
        sweep_views.trial_curve(view, services.sweeps.curve_row(view, 1), None, None, None) is None
    )
