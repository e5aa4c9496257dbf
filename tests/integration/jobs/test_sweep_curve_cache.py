"""Stored sweep curves as a bounded, least-recently-read cache (``jobs/sweep_curve_cache.py``)
on real parts: the service container and a worker context over one SQLite database. Sweeps are
written as a shard writes them (rows through ``SweepRowRepository.add_many``, which returns
the curve bytes it stored, counted in the ledger); reads go through the sweep service, as the
routes do. Over the budget, the least recently read finished sweep of the user holding the most
loses its curves; its rows stay, and the curve route's message says the curve was reclaimed and
how to run it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from sqlalchemy import text

from backtestd.domain.accounts import Principal
from backtestd.domain.jobs import JobStatus
from backtestd.domain.sweeps import LeaderboardOrder, Ranking, TrialCurve
from backtestd.jobs import sweep_curve_cache
from backtestd.jobs.context import WorkerContext, build_worker_context
from backtestd.services import sweep_views
from backtestd.services.container import Services
from backtestd.services.sweeps import SweepView
from backtestd.settings import Settings
from backtestd.storage.db.repositories.sweep_curves import SweepCurveRepository
from backtestd.storage.db.repositories.sweeps import SweepRowRepository
from tests.support.sweeps import SweepFixture, add_strategy, metrics, sweep_services

VICTIM = Principal("curves-victim", "pro")
ATTACKER = Principal("curves-attacker", "free")
CURVE = TrialCurve((0, 60_000, 120_000), (100.0, 112.5, 99.0))
RANKED, RAW = LeaderboardOrder.RANKED, Ranking.RAW
TRIALS = 3
# The text the column holds for this curve: orjson's compact text (its None written as null).
SWEEP_BYTES = TRIALS * len(orjson.dumps(vars(CURVE)))


@dataclass
class Cache:
    services: Services
    ctx: WorkerContext
    clock: list[datetime]

    def tick(self) -> datetime:
        self.clock[0] += timedelta(seconds=1)
        return self.clock[0]


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    """Room for three and a half sweeps; a clock the test moves (one second per step)."""
    settings = Settings(data_dir=tmp_path, sweep_curves_max_bytes=SWEEP_BYTES * 7 // 2)
    clock = [datetime(2026, 12, 1, tzinfo=UTC)]
    with sweep_services(settings) as services:
        services.sweeps._clock = lambda: clock[0]
        ctx = replace(build_worker_context(settings), clock=lambda: clock[0])
        add_strategy(services, VICTIM, "stg_fixture", {"fast": "int"})  # ids are global
        try:
            yield Cache(services, ctx, clock)
        finally:
            ctx.engines.close()
            ctx.database.dispose()


def _sweep(cache: Cache, user: Principal, sweep_id: str, finished: bool = True) -> SweepFixture:
    """A sweep of ``TRIALS`` trials with a curve each, stored as a shard stores them (then the
    reclaim a shard runs after storing curves)."""
    sweep = SweepFixture(
        cache.services,
        user,
        [("fast", list(range(1, TRIALS + 1)))],
        sweep_id=sweep_id,
        request_id=f"prepare-{user.user_id}",
        shards=1,
    )
    rows = [
        replace(sweep.row(ix, {"fast": ix + 1}, metrics(1.0 + ix)), curve=CURVE)
        for ix in range(TRIALS)
    ]
    now = cache.tick()
    with cache.ctx.database.unit_of_work() as uow:
        added = SweepRowRepository(uow.session).add_many(rows, now)
        SweepCurveRepository(uow.session).grow(sweep_id, user.user_id, added, now)
    assert added == SWEEP_BYTES == _column_bytes(cache, sweep_id)
    if finished:
        sweep.end_shard(0, JobStatus.COMPLETED, now)
    sweep_curve_cache.reclaim(cache.ctx)
    return sweep


def _view(cache: Cache, sweep: SweepFixture) -> SweepView:
    return cache.services.sweeps.view(
        sweep.user, "sim", "ticker", sweep.request_id, sweep.sweep_id, with_curve_metas=True
    )


def _curves(cache: Cache, sweep: SweepFixture) -> list[int]:
    """The runs whose curve the curve route serves."""
    view = _view(cache, sweep)
    served = []
    for run_ix in range(TRIALS):
        row = cache.services.sweeps.curve_row(view, run_ix)
        if sweep_views.trial_curve(view, row, None, None, None) is not None:
            served.append(run_ix)
    return served


def _column_bytes(cache: Cache, sweep_id: str) -> int:
    """What the curve column holds for a sweep, asked of SQLite directly."""
    with cache.ctx.database.engine.connect() as connection:
        return int(
            connection.execute(
                text("SELECT coalesce(sum(length(curve)), 0) FROM sweep_rows WHERE sweep_id = :s"),
                {"s": sweep_id},
            ).scalar_one()
        )


def _held(cache: Cache) -> dict[str, int]:
    with cache.ctx.database.unit_of_work() as uow:
        return SweepCurveRepository(uow.session).bytes_by_user()


def test_the_least_recently_read_finished_sweep_loses_its_curves_and_keeps_its_rows(
    cache: Cache,
) -> None:
    running = _sweep(cache, ATTACKER, "swp_lru_running", finished=False)  # written first
    first = _sweep(cache, ATTACKER, "swp_lru_first")
    second = _sweep(cache, ATTACKER, "swp_lru_second")
    cache.tick()
    assert _curves(cache, first) == [0, 1, 2]  # read: now more recently used than the second

    # Four sweeps in a budget of three and a half: the least recently read finished one goes,
    # not the running one, though it was written before all the others.
    _sweep(cache, ATTACKER, "swp_lru_third")

    assert _curves(cache, second) == []
    assert _curves(cache, first) == [0, 1, 2]
    assert _curves(cache, running) == [0, 1, 2]
    assert _held(cache) == {ATTACKER.user_id: 3 * SWEEP_BYTES}
    view = _view(cache, second)
    assert [row.run_ix for row in view.rows] == [0, 1, 2]  # rows, metrics and params kept
    assert [row.metrics.sharpe for row in view.rows] == [1.0, 2.0, 3.0]
    board = sweep_views.result(view, view.spec.objective, RANKED, RAW, 100, cache.clock[0])
    assert [r.run_ix for r in board.board.rows] == [2, 1, 0]
    assert [r.curve for r in board.board.rows] == [None] * TRIALS

    row = cache.services.sweeps.curve_row(view, 1)
    message = sweep_views.missing_curve_message(view, 1, row)
    assert "curve of run 1 of sweep swp_lru_second was reclaimed" in message
    execute = json.loads(message.split(" with ", 1)[1].split(": its result", 1)[0])
    assert execute == {
        "prepareJobId": second.request_id,
        "strategyId": "stg_fixture",
        "params": {"fast": 2},
    }
    assert "/v1/backtest/sim/ticker/execute" in message
    never = sweep_views.missing_curve_message(view, 7, None)
    assert "reclaimed" not in never  # a run that does not exist is not said to be reclaimed


def test_an_attacker_filling_the_curve_budget_loses_its_own_and_the_victims_idle_sweep_stays(
    cache: Cache,
) -> None:
    victim = _sweep(cache, VICTIM, "swp_fair_victim")  # the least recently read, never read
    attacks = [_sweep(cache, ATTACKER, f"swp_fair_attack{n}") for n in range(5)]

    # A global least-recently-read order would have taken the victim's first of all.
    assert _curves(cache, victim) == [0, 1, 2]
    assert [bool(_curves(cache, sweep)) for sweep in attacks] == [False] * 3 + [True] * 2
    assert _held(cache) == {VICTIM.user_id: SWEEP_BYTES, ATTACKER.user_id: 2 * SWEEP_BYTES}


def test_dropping_curves_says_the_bytes_freed_and_a_deleted_strategys_sweeps_leave_the_ledger(
    cache: Cache,
) -> None:
    sweep = _sweep(cache, VICTIM, "swp_deleted", finished=False)
    with cache.ctx.database.unit_of_work() as uow:
        freed = SweepRowRepository(uow.session).drop_curves(sweep.sweep_id, [0, 2])
    assert freed == 2 * SWEEP_BYTES // TRIALS
    assert _column_bytes(cache, sweep.sweep_id) == SWEEP_BYTES // TRIALS

    cache.services.strategies.delete(VICTIM, "stg_fixture")

    assert _held(cache) == {}
    assert _column_bytes(cache, sweep.sweep_id) == 0
