"""Real services for sweep tests, without HTTP and without running anything.

``sweep_services`` builds the service container on a fresh SQLite database with a job queue
that holds what it is given (``HeldQueue``: the state of a queue whose workers are busy);
``add_strategy`` stores a strategy with declared properties directly, so sweeps can be
submitted without compiling one on the JVM; ``completed_prepare`` leaves a prepare job
Completed, as a worker would. ``SweepFixture`` writes a sweep's job rows and trial rows through
the repositories, for the read views.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from backtestd.domain.accounts import Principal
from backtestd.domain.backtests import BaseConfig
from backtestd.domain.job_specs import JobSpec
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.domain.strategies import PropertySpec, StrategyRecord
from backtestd.domain.sweeps import (
    CurvePrefs,
    FoldOutcome,
    Objective,
    Params,
    Sampler,
    SweepAxis,
    SweepMetrics,
    SweepRow,
    SweepShardSpec,
    SweepSpec,
    TrialCurve,
    WalkForward,
)
from backtestd.services.backtests import PrepareInput
from backtestd.services.container import Services, build_services
from backtestd.settings import Settings
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.sweeps import SweepJobRepository, SweepRowRepository
from tests.support.held_queue import HeldQueue

T0 = datetime(2026, 11, 28, 12, tzinfo=UTC)


@contextmanager
def sweep_services(settings: Settings) -> Iterator[Services]:
    built = build_services(settings)
    built.backtests.executor = HeldQueue()
    try:
        yield built
    finally:
        built.close()


def held(services: Services) -> HeldQueue:
    executor = services.backtests.executor
    assert isinstance(executor, HeldQueue)
    return executor


def add_strategy(
    services: Services, user: Principal, strategy_id: str, properties: dict[str, str]
) -> None:
    """A registered strategy declaring ``properties`` (name to Java type)."""
    record = StrategyRecord(
        strategy_id=strategy_id,
        user_id=user.user_id,
        language="java",
        content_digest=f"digest-{strategy_id}",
        generation=1,
        source="// declared properties only",
        main_class="Swept",
        class_files={},
        declared_properties=tuple(
            PropertySpec(name, "", None, True, type=kind) for name, kind in properties.items()
        ),
        required_sources=(),
        compiled_at=T0,
    )
    with services.database.unit_of_work() as uow:
        assert StrategyRepository(uow.session).add(record)


def completed_prepare(services: Services, user: Principal, days_ago: int = 2) -> str:
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=days_ago)
    asked = PrepareInput(
        start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        (start + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "BTC/USDT",
        None,
    )
    job_id, _ = services.backtests.prepare(user, "sim", "ticker", asked)
    with services.database.unit_of_work() as uow:
        jobs = JobRepository(uow.session)
        assert jobs.mark_started(job_id, T0)
        assert jobs.finish(job_id, JobStatus.COMPLETED, T0, None, None)
    return job_id


def metrics(sharpe: float, trades: int = 40, max_dd_pct: float = 5.0) -> SweepMetrics:
    """A trial's figures: the Sharpe, trades and drawdown vary; pnl follows the Sharpe."""
    return SweepMetrics(
        sharpe=sharpe,
        sortino=sharpe * 1.5,
        pnl=sharpe * 10.0,
        pnl_pct=sharpe * 10.0,
        cagr=sharpe / 10.0,
        max_dd_pct=max_dd_pct,
        trades=trades,
        win_rate=0.5,
    )


@dataclass
class SweepFixture:
    """A sweep written straight into the database: its job row, its shards, its rows."""

    services: Services
    user: Principal
    axes: Sequence[tuple[str, Sequence[bool | int | float]]]
    sweep_id: str = "swp_fixture"
    request_id: str = "prepare-fixture"
    shards: int = 2
    objective: Objective = Objective.SHARPE
    walk_forward: WalkForward | None = None
    curves: CurvePrefs = field(default_factory=CurvePrefs)
    min_trade_floor: int = 30
    size: int | None = None

    def __post_init__(self) -> None:
        vectors = 1
        for _, values in self.axes:
            vectors *= len(values)
        self.spec = SweepSpec(
            prepare_job_id=self.request_id,
            strategy_id="stg_fixture",
            axes=tuple(SweepAxis(name, tuple(values)) for name, values in self.axes),
            sampler=Sampler.GRID,
            seed=0,
            samples=None,
            objective=self.objective,
            base_config=BaseConfig(),
            min_trade_floor=self.min_trade_floor,
            shards=self.shards,
            walk_forward=self.walk_forward,
            curves=self.curves,
        )
        with self.services.database.unit_of_work() as uow:
            jobs = JobRepository(uow.session)
            assert jobs.add(
                self._job(self.sweep_id, JobKind.SWEEP, self.spec, self.size or vectors)
            )
            for n in range(self.shards):
                shard = SweepShardSpec(self.sweep_id, start=n, stop=n + 1)
                assert jobs.add(self._job(self.shard_id(n), JobKind.SWEEP_SHARD, shard, 0))

    def _job(self, job_id: str, kind: JobKind, spec: JobSpec, size: int) -> JobRecord:
        return JobRecord(
            job_id=job_id,
            user_id=self.user.user_id,
            kind=kind,
            exchange_id="sim",
            data_type="ticker",
            spec=spec,
            status=JobStatus.NEW,
            created_at=T0,
            size=size,
        )

    def shard_id(self, n: int) -> str:
        return f"{self.sweep_id}.{n}"

    def add_rows(self, *rows: SweepRow) -> None:
        with self.services.database.unit_of_work() as uow:
            SweepRowRepository(uow.session).add_many(rows, T0)

    def row(
        self,
        run_ix: int,
        params: Params,
        figures: SweepMetrics,
        *,
        aborted: bool = False,
        returns: tuple[float, ...] = (),
        curve: bool = False,
        fold: FoldOutcome | None = None,
    ) -> SweepRow:
        return SweepRow(
            sweep_id=self.sweep_id,
            run_ix=run_ix,
            params=params,
            metrics=figures,
            aborted=aborted,
            runtime_ms=3,
            daily_returns=returns,
            error="the strategy threw" if aborted else None,
            curve=TrialCurve((0, 60_000, 120_000), (100.0, 100.0 + figures.pnl, 99.0))
            if curve
            else None,
            fold=fold,
        )

    def start_shard(self, n: int, at: datetime, sweep_too: bool = True) -> None:
        with self.services.database.unit_of_work() as uow:
            jobs = JobRepository(uow.session)
            assert jobs.mark_started(self.shard_id(n), at)
        if sweep_too:
            with self.services.database.unit_of_work() as uow:
                SweepJobRepository(uow.session).start(self.sweep_id, at)

    def end_shard(self, n: int, status: JobStatus, at: datetime, detail: str | None = None) -> None:
        """A shard ends as a worker ends it, then the runner's closing step runs."""
        with self.services.database.unit_of_work() as uow:
            jobs = JobRepository(uow.session)
            jobs.mark_started(self.shard_id(n), at)
            assert jobs.finish(self.shard_id(n), status, at, detail, None)
        with self.services.database.unit_of_work() as uow:
            SweepJobRepository(uow.session).close_if_done(self.sweep_id, at)

    def job(self, job_id: str | None = None) -> JobRecord:
        return job_of(self.services, job_id or self.sweep_id)


def job_of(services: Services, job_id: str) -> JobRecord:
    with services.database.unit_of_work() as uow:
        found = JobRepository(uow.session).get(job_id)
    assert found is not None
    return found
