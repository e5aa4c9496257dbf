"""The sweep service on real parts (SQLite, the real admission and repositories), without HTTP
and without running a trial: submission (what is stored and queued, what is refused), the
identical resubmission, cancellation, and the one rule that closes a sweep when its last shard
ends, applied by a worker's closing step and by recovery alike."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from backtestd.domain.accounts import Principal
from backtestd.domain.backtests import BaseConfig
from backtestd.domain.jobs import JobStatus
from backtestd.domain.sweeps import (
    AxisRange,
    AxisRequest,
    AxisValues,
    CurveMode,
    CurvePrefs,
    Objective,
    Sampler,
    SweepAxis,
    SweepShardSpec,
    SweepSpec,
    SweepStatus,
    WalkForward,
)
from backtestd.errors import InvalidInput, NotFound
from backtestd.services import sweep_views
from backtestd.services.container import Services
from backtestd.services.sweeps import SweepRequest
from backtestd.settings import Settings
from backtestd.storage.db.repositories.jobs import JobRepository
from tests.support.sweeps import (
    T0,
    SweepFixture,
    add_strategy,
    completed_prepare,
    held,
    job_of,
    sweep_services,
)

ALICE = Principal("sweep-alice", "basic")  # maxSweepCartesian 1,000
STRATEGY = "stg_sweep_service"


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    settings = Settings(data_dir=tmp_path, dask_workers=2, sweep_budget=500, sweep_max_folds=6)
    with sweep_services(settings) as built:
        add_strategy(built, ALICE, STRATEGY, {"fast": "int", "slow": "long", "scale": "double"})
        yield built


def _request(
    axes: dict[str, AxisRequest],
    *,
    sampler: Sampler = Sampler.GRID,
    seed: int | None = None,
    samples: int | None = None,
    shards: int = 0,
    walk: tuple[int, int] | None = None,
    curves: CurvePrefs | None = None,
) -> SweepRequest:
    return SweepRequest(
        strategy_id=STRATEGY,
        axes=axes,
        sampler=sampler,
        seed=seed,
        samples=samples,
        objective=Objective.SHARPE,
        base_config=BaseConfig(),
        store_signals=False,
        shards=shards,
        min_trade_floor=30,
        walk_forward=walk,
        curves=curves or CurvePrefs(),
    )


GRID = {"fast": AxisRange(5.0, 20, 5), "scale": AxisValues((0.5, 1))}


def test_a_grid_sweep_stores_its_coerced_lattice_and_queues_only_its_shards(
    services: Services,
) -> None:
    prepare_id = completed_prepare(services, ALICE)
    queued_before = list(held(services).submitted)

    accepted = services.sweeps.submit(ALICE, "sim", "ticker", prepare_id, _request(GRID))

    assert accepted.total_runs == 8  # fast 5, 10, 15, 20 x scale 0.5, 1.0
    assert accepted.shards == 1  # 8 vectors, at least 8 a shard
    assert accepted.queued
    assert accepted.request_id == prepare_id
    assert accepted.walk_forward is None
    assert accepted.walk_forward_runs is None
    assert held(services).submitted[len(queued_before) :] == [f"{accepted.sweep_id}.0"]
    stored = job_of(services, accepted.sweep_id)
    assert stored.size == 8
    assert stored.status is JobStatus.NEW
    spec = stored.spec_as(SweepSpec)
    assert spec.axes == (SweepAxis("fast", (5, 10, 15, 20)), SweepAxis("scale", (0.5, 1.0)))
    assert [type(v) for v in spec.axes[0].values] == [int] * 4  # a Java int takes ints
    assert [type(v) for v in spec.axes[1].values] == [float] * 2
    shard = job_of(services, f"{accepted.sweep_id}.0").spec_as(SweepShardSpec)
    assert (shard.start, shard.stop) == (0, 8)


def test_an_identical_resubmission_answers_the_stored_sweep_with_its_drawn_seed(
    services: Services,
) -> None:
    prepare_id = completed_prepare(services, ALICE)
    asked = _request({"fast": AxisRange(1, 40, 1)}, sampler=Sampler.RANDOM, samples=24, shards=3)

    first = services.sweeps.submit(ALICE, "sim", "ticker", prepare_id, asked)
    again = services.sweeps.submit(ALICE, "sim", "ticker", prepare_id, asked)
    other = services.sweeps.submit(
        ALICE, "sim", "ticker", prepare_id, _request({"fast": AxisRange(1, 40, 1)}, shards=3)
    )

    assert first.queued
    assert not again.queued
    assert again.sweep_id == first.sweep_id
    assert again.seed == first.seed
    assert (first.total_runs, first.shards) == (24, 3)
    assert other.sweep_id != first.sweep_id
    assert other.total_runs == 40
    shard_ids = [i for i in held(services).submitted if i.startswith(first.sweep_id)]
    assert shard_ids == [f"{first.sweep_id}.{n}" for n in range(3)]  # queued once


def test_a_walk_forward_sweep_runs_every_vector_per_fold_plus_its_winner(
    services: Services,
) -> None:
    prepare_id = completed_prepare(services, ALICE)

    accepted = services.sweeps.submit(
        ALICE, "sim", "ticker", prepare_id, _request(GRID, walk=(4, 70))
    )

    assert accepted.walk_forward == WalkForward(4, 70)
    assert accepted.walk_forward_runs == 4 * (8 + 1)
    assert accepted.shards == 4  # one shard a fold


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (_request({"fast": AxisRange(1, 2000, 1)}), "above maxSweepCartesian = 1000 on the basic"),
        (_request({"fast": AxisRange(1, 400, 1)}, walk=(2, 50)), "would run 802 backtests"),
        (_request(GRID, walk=(9, 50)), "walkForward.folds must be between 2 and 6"),
        (_request(GRID, curves=CurvePrefs(mode=CurveMode.TOP_N)), "'topN' needs 'n'"),
        (_request({"fast": AxisValues((2.5,))}), "'fast': 2.5 is not a whole number"),
        (_request({"slower": AxisValues((1,))}), "declared: fast, scale, slow"),
        (_request(GRID, sampler=Sampler.LHS), "sampler 'lhs' needs 'samples'"),
        (
            _request(GRID, sampler=Sampler.RANDOM, samples=1001),
            "'samples' is 1001, above maxSweepCartesian = 1000 on the basic tier",
        ),
    ],
)
def test_a_refused_sweep_says_why_and_stores_nothing(
    services: Services, request_: SweepRequest, message: str
) -> None:
    prepare_id = completed_prepare(services, ALICE)
    queued = len(held(services).submitted)

    with pytest.raises(InvalidInput, match=message):
        services.sweeps.submit(ALICE, "sim", "ticker", prepare_id, request_)

    assert len(held(services).submitted) == queued


def test_a_sweep_waits_for_its_prepare_and_names_only_the_owners_strategy(
    services: Services,
) -> None:
    prepare_id = completed_prepare(services, ALICE)
    bob = Principal("sweep-bob", "basic")
    bobs_prepare = completed_prepare(services, bob, days_ago=3)

    with pytest.raises(NotFound, match="no strategy 'stg_sweep_service'"):
        services.sweeps.submit(bob, "sim", "ticker", bobs_prepare, _request(GRID))
    with pytest.raises(InvalidInput, match="cannot be swept"):
        services.sweeps.submit(ALICE, "sim", "funding", prepare_id, _request(GRID))


def test_cancel_aborts_the_sweep_and_its_waiting_shards_and_the_closing_rule_keeps_it(
    services: Services,
) -> None:
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2, 3])], shards=3)
    sweep.start_shard(0, T0)

    services.sweeps.cancel(ALICE, "sim", "ticker", sweep.request_id, sweep.sweep_id)

    assert sweep.job().status is JobStatus.ABORTED
    assert sweep.job().status_detail == "cancelled on request"
    running = sweep.job(sweep.shard_id(0))
    assert running.status is JobStatus.STARTED  # stops at a check
    assert running.cancel_requested
    assert [sweep.job(sweep.shard_id(n)).status for n in (1, 2)] == [JobStatus.ABORTED] * 2
    sweep.end_shard(0, JobStatus.ABORTED, T0 + timedelta(seconds=5), "cancelled on request")
    view = services.sweeps.view(ALICE, "sim", "ticker", sweep.request_id, sweep.sweep_id)
    assert sweep_views.status_of(view) is SweepStatus.CANCELLED
    assert sweep.job().status is JobStatus.ABORTED


def test_cancel_of_someone_elses_sweep_is_not_found_and_changes_nothing(
    services: Services,
) -> None:
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2])], shards=1)

    with pytest.raises(NotFound):
        services.sweeps.cancel(
            Principal("intruder", "pro"), "sim", "ticker", sweep.request_id, sweep.sweep_id
        )

    assert sweep.job().status is JobStatus.NEW
    assert not sweep.job().cancel_requested


def test_the_last_shard_to_end_closes_the_sweep_once(services: Services) -> None:
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2, 3])], shards=3)
    sweep.start_shard(0, T0)
    sweep.end_shard(0, JobStatus.COMPLETED, T0 + timedelta(seconds=10))
    sweep.end_shard(1, JobStatus.FAILED, T0 + timedelta(seconds=20), "internal error: boom")
    assert sweep.job().status is JobStatus.STARTED  # shard 2 is still queued

    sweep.end_shard(2, JobStatus.COMPLETED, T0 + timedelta(seconds=30))

    closed = sweep.job()
    assert closed.status is JobStatus.COMPLETED
    assert closed.status_detail == "internal error: boom"  # the partial sweep says why
    assert closed.start_time == T0
    assert closed.end_time == T0 + timedelta(seconds=30)
    view = services.sweeps.view(ALICE, "sim", "ticker", sweep.request_id, sweep.sweep_id)
    assert sweep_views.status_of(view) is SweepStatus.PARTIAL
    assert services.sweeps.finish_orphans() == 0  # nothing left to close


def test_recovery_closes_a_sweep_whose_shards_all_failed_while_nobody_closed_it(
    services: Services,
) -> None:
    sweep = SweepFixture(services, ALICE, [("fast", [1, 2])], shards=2)
    other = SweepFixture(services, ALICE, [("fast", [1, 2])], sweep_id="swp_open", shards=1)
    with services.database.unit_of_work() as uow:
        jobs = JobRepository(uow.session)
        for n in range(2):  # the worker ended them, then its process died before closing
            jobs.mark_started(sweep.shard_id(n), T0)
            jobs.finish(sweep.shard_id(n), JobStatus.FAILED, T0, f"the engine host died {n}", None)

    assert services.sweeps.finish_orphans() == 1

    assert sweep.job().status is JobStatus.FAILED
    assert sweep.job().status_detail == "the engine host died 0"
    assert other.job().status is JobStatus.NEW  # its shard never ran
