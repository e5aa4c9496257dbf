"""Sweep shards: many parameter vectors over one prepared dataset in one warm engine host.

A shard loads the prepared columns and the strategy once, then runs its vectors in batches of
``BATCH_VECTORS``, each batch one request to the warm engine host (params are applied without
recompiling; the host maps the columns once per batch), storing each row as it is evaluated and
checking for cancellation between batches (a cancel also kills the batch in flight). Rows are
keyed by ``runIx``, so a retried shard skips the rows it already wrote; that is also how a
shard gives its worker back: once it has run ``shard_slice_seconds``, if another user's job is
waiting, it stores its rows and ends its turn (``JobYielded``), and its next turn goes on where
it stopped. A vector whose run fails
(the strategy threw, or hit a limit) becomes an ``aborted`` row and the shard goes on. In
walk-forward mode a shard is one fold: it runs every vector on the fold's in-sample window,
then its winner on the out-of-sample window.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import partial

import numpy as np
import numpy.typing as npt

from backtestd.domain.backtest_results import Metrics
from backtestd.domain.jobs import RUNNABLE_KINDS, JobKind, JobRecord
from backtestd.domain.strategies import StrategyRecord
from backtestd.domain.sweeps import (
    FoldOutcome,
    Objective,
    Params,
    ShardOutcome,
    SweepRow,
    SweepShardSpec,
    SweepSpec,
    SweepWorkerLimit,
    TrialCurve,
)
from backtestd.engine.equity_curve import equity_points, resample
from backtestd.engine.metrics import daily_returns, sweep_metrics
from backtestd.engine.portfolio import PortfolioResult
from backtestd.jobs import prepared_cache, sweep_curve_cache
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.handlers.execute import ExecuteFailed
from backtestd.jobs.handlers.trial import (
    PreparedData,
    RunBudget,
    TrialFailed,
    evaluate,
    load_prepared,
)
from backtestd.jobs.progress import JobCancelled, JobFailed, JobProgress, JobYielded
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.sweep_curves import SweepCurveRepository
from backtestd.storage.db.repositories.sweeps import SweepJobRepository, SweepRowRepository
from backtestd.strategy.failures import describe_run_failure
from backtestd.strategy.jvm import RunFailure, RunFailureKind, RunRequest, RunResult
from backtestd.sweeps.plan import expand_vectors, lattices, retained_count
from backtestd.sweeps.run_order import run_order
from backtestd.sweeps.walkforward import fold_windows

BATCH_VECTORS = 16
"""Vectors per engine request: one round trip, one column mapping, one class check and one read
of the JVM's error counts for all of them (a request costs the host about 4 ms of CPU and its
client 1 ms, docs/benchmarks.md). A cancel kills the request in flight, so a larger batch only
loses more unwritten work on cancel, and the host holds the signals of the whole batch until it
answers (about 0.3 MB a vector on a month of one-second bars)."""

ABORTED_METRICS = Metrics(0.0, 0.0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
"""What an aborted row carries: the metrics of a run without trades (see docs/sweeps.md)."""


CurveRule = Callable[[float, int], bool]
"""Whether a trial with this objective value and ``runIx`` may keep its equity curve."""


def _always(value: float, run_ix: int) -> bool:
    return True


def _never(value: float, run_ix: int) -> bool:
    return False


@dataclass(frozen=True)
class PendingCurve:
    """A trial's equity curve as it was evaluated (thinned to the stored bound), made into
    its stored form only if the trial is still among its shard's best when curves are written:
    most trials that enter the best at first leave it again within the same sweep."""

    ts: npt.NDArray[np.int64]
    eq: npt.NDArray[np.float64]
    full_points: int | None

    @classmethod
    def of(cls, portfolio: PortfolioResult, bound: int) -> PendingCurve:
        ts, eq = equity_points(portfolio)
        full = len(ts)
        if full > bound:
            ts, eq = resample(ts, eq, bound)
        return cls(ts, eq, full if full > bound else None)

    def stored(self) -> TrialCurve:
        # Timestamps as integers: JSON-encoding an int is cheaper than a float.
        return TrialCurve(tuple(self.ts.tolist()), tuple(self.eq.tolist()), self.full_points)


@dataclass(frozen=True)
class Trial:
    row: SweepRow  # without its curve: see ``curve``
    objective_value: float
    curve: PendingCurve | None = None  # built when the trial may enter its shard's best


class _Shard:
    """The state one shard shares across its vectors."""

    def __init__(self, ctx: WorkerContext, job: JobRecord) -> None:
        self.ctx = ctx
        self.shard = job.spec_as(SweepShardSpec)
        self.sweep_id = self.shard.sweep_id
        with ctx.database.unit_of_work() as uow:
            SweepJobRepository(uow.session).start(self.sweep_id, ctx.clock())
            sweep = JobRepository(uow.session).get(self.sweep_id)
            if sweep is None:
                raise ExecuteFailed(f"sweep {self.sweep_id} no longer exists")
            self.spec = sweep.spec_as(SweepSpec)
            self.base_config = self.spec.base_config
            strategy = StrategyRepository(uow.session).get(self.spec.strategy_id)
        if strategy is None:
            raise ExecuteFailed(f"strategy {self.spec.strategy_id} no longer exists")
        self.strategy: StrategyRecord = strategy
        try:
            self.data: PreparedData = load_prepared(ctx, self.spec.prepare_job_id, job.data_type)
        except TrialFailed as exc:
            raise ExecuteFailed(str(exc)) from exc
        self.vectors = expand_vectors(self.spec)
        self.budget = RunBudget.of(ctx, self.spec.run_limit)

    def trials(
        self,
        batch: list[tuple[int, Params]],
        rows: tuple[int, int] | None,
        keep_curve: CurveRule,
        progress: JobProgress,
    ) -> list[Trial]:
        """Run a batch of ``(runIx, params)`` through one engine request, then evaluate each.

        A vector that fails becomes an aborted row; the others are unaffected. A row's
        ``runtime_ms`` is its share of the engine request plus its own evaluation.
        """
        started = time.perf_counter()
        request = RunRequest.of_strategy(
            self.strategy,
            self.data.feed,
            self.data.columns,
            self.data.instrument,
            rows=rows,
            cpu_limit_s=self.budget.cpu_s,
            wall_limit_s=self.budget.wall_s,
        )
        try:
            outcomes = self.ctx.engines.run_many(
                request, [params for _, params in batch], progress.cancel_requested
            )
        except RunFailure as failure:
            if failure.kind is RunFailureKind.CANCELLED:
                raise JobCancelled(self.sweep_id) from failure
            raise
        engine_s = (time.perf_counter() - started) / len(batch)
        return [
            self._trial(run_ix, params, outcome, rows, keep_curve, engine_s)
            for (run_ix, params), outcome in zip(batch, outcomes, strict=True)
        ]

    def trial(
        self,
        run_ix: int,
        params: Params,
        rows: tuple[int, int] | None,
        keep_curve: CurveRule,
        progress: JobProgress,
    ) -> Trial:
        return self.trials([(run_ix, params)], rows, keep_curve, progress)[0]

    def _trial(
        self,
        run_ix: int,
        params: Params,
        outcome: RunResult | RunFailure,
        rows: tuple[int, int] | None,
        keep_curve: CurveRule,
        engine_s: float,
    ) -> Trial:
        started = time.perf_counter() - engine_s
        if isinstance(outcome, RunFailure):
            row = SweepRow(
                sweep_id=self.sweep_id,
                run_ix=run_ix,
                params=params,
                metrics=sweep_metrics(ABORTED_METRICS),
                aborted=True,
                runtime_ms=_ms_since(started),
                error=describe_run_failure(self.strategy, outcome)[:2000],
            )
            return Trial(row, 0.0)
        portfolio, metrics = evaluate(self.data, outcome, self.base_config, rows)
        figures = sweep_metrics(metrics)
        value = self.spec.objective.score(figures)
        curve = None
        if portfolio.trades.count and keep_curve(value, run_ix):
            curve = PendingCurve.of(portfolio, self.ctx.settings.sweep_curve_max_points)
        row = SweepRow(
            sweep_id=self.sweep_id,
            run_ix=run_ix,
            params=params,
            metrics=figures,
            aborted=False,
            runtime_ms=_ms_since(started),
            daily_returns=tuple(round(float(r), 15) for r in daily_returns(portfolio)),
        )
        return Trial(row, value, curve)


def _ms_since(started: float) -> int:
    return int(round((time.perf_counter() - started) * 1000))


def _better(objective: Objective, a: float, b: float) -> bool:
    return a > b if objective.higher_is_better else a < b


class _Turn:
    """How long a shard has held its worker, and whether it should now give it back.

    A shard is one Dask task; without turns it would keep its worker until its last vector,
    and another user's job (queued with a better fair-share priority) would still wait for all
    of them. Once the turn is over, the database is asked, at most every ``CHECK_SECONDS``,
    whether another user's job is waiting; a job submitted less than ``GRACE`` ago is not
    counted, since it usually finds an idle worker by itself. Batches of slow vectors are cut
    to about a turn (``batch_size``), since a waiting job also waits for the batch in flight.
    """

    CHECK_SECONDS = 0.5
    GRACE = timedelta(seconds=0.25)

    def __init__(self, ctx: WorkerContext, user_id: str) -> None:
        self._ctx = ctx
        self._user_id = user_id
        self._length = ctx.settings.shard_slice_seconds
        self._started = time.monotonic()
        self._checked = self._started
        self._vector_s = 0.0  # the last batch's time per vector

    def ran(self, vectors: int, seconds: float) -> None:
        self._vector_s = seconds / max(1, vectors)

    def batch_size(self) -> int:
        """``BATCH_VECTORS``, or fewer when vectors are slow: a batch is not interrupted, so a
        waiting job waits for the batch in flight, which should not outlast a turn."""
        if self._length <= 0:
            return BATCH_VECTORS
        if self._vector_s <= 0:
            return 1  # the first batch measures a vector: it might take maxRunSeconds
        return max(1, min(BATCH_VECTORS, int(self._length / self._vector_s)))

    def over(self) -> bool:
        if self._length <= 0:
            return False
        now = time.monotonic()
        if now - self._started < self._length or now - self._checked < self.CHECK_SECONDS:
            return False
        self._checked = now
        with self._ctx.database.unit_of_work() as uow:
            return JobRepository(uow.session).others_waiting(
                RUNNABLE_KINDS, self._user_id, self._ctx.clock() - self.GRACE
            )


class _WorkerTime:
    """The sweep's use of worker time against its tier's ``maxSweepWorkerSeconds``: the run
    times of its stored trials, in every shard, plus this shard's rows not yet written; read
    at most every ``CHECK_SECONDS``."""

    CHECK_SECONDS = 1.0

    def __init__(self, ctx: WorkerContext, sweep_id: str, limit: SweepWorkerLimit | None):
        self._ctx = ctx
        self._sweep_id = sweep_id
        self._limit = limit
        self._checked = float("-inf")

    def check(self, writer: _RowWriter) -> None:
        """Raise ``JobFailed`` (after storing what ran) once the sweep has used its time."""
        if self._limit is None or time.monotonic() - self._checked < self.CHECK_SECONDS:
            return
        self._checked = time.monotonic()
        with self._ctx.database.unit_of_work() as uow:
            used_ms = SweepRowRepository(uow.session).runtime_ms(self._sweep_id)
        used_ms += writer.pending_ms()
        if used_ms < self._limit.seconds * 1000:
            return
        writer.flush(final=True)
        raise JobFailed(
            f"the sweep has used {used_ms / 1000:,.0f} s of worker time, the "
            f"{self._limit.tier} tier's maxSweepWorkerSeconds of {self._limit.seconds:,}; "
            "its remaining vectors were not run and the rows that ran are kept (see GET "
            "/v1/account): sweep fewer vectors (random or lhs samples) or a shorter range"
        )


def run_sweep_shard(ctx: WorkerContext, job: JobRecord, progress: JobProgress) -> ShardOutcome:
    shard = _Shard(ctx, job)
    if shard.spec.walk_forward is not None:
        return _run_fold(shard, job, progress)
    start, stop = shard.shard.start, shard.shard.stop
    keep = retained_count(shard.spec, len(shard.vectors))
    with ctx.database.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        done = repo.stored_ixs(shard.sweep_id, start, stop)
        stored = repo.rows(shard.sweep_id, with_folds=False) if done else []
        with_curve = repo.curve_ixs(shard.sweep_id) if done else set()
    progress.size(stop - start)
    writer = _RowWriter(ctx, shard.sweep_id, job.user_id, progress, len(done))
    kept = shard_best(shard.spec.objective, [r for r in stored if start <= r.run_ix < stop], keep)
    # A shard that stopped before writing its best rows' curves (its worker died) runs those
    # vectors again for their curves (same params, same bits), and drops curves it had
    # stored of rows that have left its best since.
    best = {ix for _, ix in kept}
    writer.drop({ix for ix in with_curve if start <= ix < stop} - best)
    lost = sorted(best - with_curve)
    if lost:
        for trial in shard.trials(
            [(ix, shard.vectors[ix]) for ix in lost], None, _always, progress
        ):
            writer.keep_curve(trial)
    todo = run_order(
        lattices(shard.spec), shard.vectors, [ix for ix in range(start, stop) if ix not in done]
    )
    turn = _Turn(ctx, job.user_id)
    worker_time = _WorkerTime(ctx, shard.sweep_id, shard.spec.worker_limit)
    at = 0
    try:
        while at < len(todo):
            # A cancel stops the shard between batches: the flag read at most every POLL_S, by
            # this and the engine request in flight together (read before every batch, it was
            # a tenth of a sweep worker's Python time).
            progress.check_polled()
            worker_time.check(writer)
            if turn.over():
                writer.flush(final=True)
                raise JobYielded(job.job_id)
            prepared_cache.used(ctx, shard.spec.prepare_job_id)  # still in use: keep it
            size = turn.batch_size()
            batch = [(ix, shard.vectors[ix]) for ix in todo[at : at + size]]
            at += len(batch)
            rule = partial(may_keep, shard.spec.objective, list(kept), keep)
            started = time.monotonic()
            for trial in shard.trials(batch, None, rule, progress):
                writer.add(trial, keep_best(shard.spec.objective, kept, trial, keep))
            turn.ran(len(batch), time.monotonic() - started)
    except JobCancelled:
        writer.flush(update=False, final=True)  # finished rows stay readable
        raise
    writer.flush(final=True)
    return ShardOutcome(rows=writer.written)


class _RowWriter:
    """Writes finished rows in small batches (one transaction per batch, not per vector), and
    the curves of the shard's best rows less often.

    A batch is flushed every ``FLUSH_SECONDS`` or ``FLUSH_ROWS`` rows, so that short trials do
    not pay a write transaction each. Curves go with a flush every ``CURVE_SECONDS`` (or once
    ``FLUSH_ROWS`` of them wait: a large ``topN`` over short data would hold many) and with the
    shard's last one (its end, a yield, a cancel, a limit): those of the rows then among the
    shard's best, while the stored curves of rows that left it are dropped. Written with each
    batch, most curves were dropped again within the same sweep (a 100-vector sweep stored 56
    curves of up to 20,000 points to keep 20; docs/benchmarks.md).
    """

    FLUSH_SECONDS = 0.5
    FLUSH_ROWS = 50
    CURVE_SECONDS = 2.0

    def __init__(
        self, ctx: WorkerContext, sweep_id: str, user_id: str, progress: JobProgress, done: int
    ):
        self._ctx = ctx
        self._sweep_id = sweep_id
        self._user_id = user_id
        self._progress = progress
        self._pending: list[SweepRow] = []
        self._curves: dict[int, PendingCurve] = {}  # of the shard's best, not stored yet
        self._dropped: set[int] = set()  # stored curves of rows that left the shard's best
        self._last = self._curves_written = time.monotonic()
        self.written = done

    def pending_ms(self) -> int:
        """Run time of the rows not written yet."""
        return sum(row.runtime_ms for row in self._pending)

    def add(self, trial: Trial, dropped: list[int]) -> None:
        """A finished trial's row, and (``keep_best``) the rows that left the shard's best."""
        self._pending.append(trial.row)
        self.keep_curve(trial)
        self.drop(dropped)
        if (
            len(self._pending) >= self.FLUSH_ROWS
            or len(self._curves) >= self.FLUSH_ROWS
            or time.monotonic() - self._last >= self.FLUSH_SECONDS
        ):
            self.flush()

    def keep_curve(self, trial: Trial) -> None:
        """A trial's curve, to store with the next curves (its row is stored or pending)."""
        if trial.curve is not None:
            self._curves[trial.row.run_ix] = trial.curve

    def drop(self, run_ixs: Iterable[int]) -> None:
        """These rows left the shard's best: forget their curves, or drop the stored ones."""
        for run_ix in run_ixs:
            if self._curves.pop(run_ix, None) is None:
                self._dropped.add(run_ix)

    def flush(self, update: bool = True, final: bool = False) -> None:
        """Store the pending rows; with the curves when ``final``, ``CURVE_SECONDS`` since the
        last ones or ``FLUSH_ROWS`` of them waiting."""
        now = time.monotonic()
        curves = (
            final
            or now - self._curves_written >= self.CURVE_SECONDS
            or len(self._curves) >= self.FLUSH_ROWS
        )
        added = freed = 0
        with self._ctx.database.unit_of_work() as uow:
            repo = SweepRowRepository(uow.session)
            repo.add_many(self._pending, self._ctx.clock())  # rows without their curves
            if curves:
                stored = {run_ix: curve.stored() for run_ix, curve in self._curves.items()}
                added = repo.attach_curves(self._sweep_id, stored)
                freed = repo.drop_curves(self._sweep_id, self._dropped)
                if added or freed:
                    SweepCurveRepository(uow.session).grow(
                        self._sweep_id, self._user_id, added - freed, self._ctx.clock()
                    )
        if added > freed:
            sweep_curve_cache.reclaim(self._ctx)
        self.written += len(self._pending)
        self._pending.clear()
        if curves:
            self._curves.clear()
            self._dropped.clear()
            self._curves_written = now
        self._last = time.monotonic()
        if update:
            self._progress.update(self.written)  # raises JobCancelled once a cancel is requested


def _rank_key(objective: Objective, value: float, run_ix: int) -> tuple[float, int]:
    return (-value if objective.higher_is_better else value, run_ix)


def may_keep(
    objective: Objective, kept: list[tuple[float, int]], keep: int, value: float, run_ix: int
) -> bool:
    """Whether a trial would enter the shard's best ``keep`` (``kept``, best first): only then
    is its curve built (a curve of many trades is large, and most would be dropped at once)."""
    if keep <= 0:
        return False
    if len(kept) < keep:
        return True
    worst = kept[-1]
    return _rank_key(objective, value, run_ix) < _rank_key(objective, *worst)


def keep_best(
    objective: Objective, kept: list[tuple[float, int]], trial: Trial, keep: int
) -> list[int]:
    """Track the shard's best ``keep`` curves; return the run indices whose curve to drop.

    The sweep's global top ``keep`` is always inside the union of every shard's top ``keep``,
    so curves outside a shard's own top set can never be selected and are dropped at once.
    """
    if trial.curve is None:
        return []
    kept.append((trial.objective_value, trial.row.run_ix))
    kept.sort(key=lambda pair: _rank_key(objective, *pair))
    dropped = [ix for _, ix in kept[keep:]]
    del kept[keep:]
    return dropped


def shard_best(
    objective: Objective, rows: Iterable[SweepRow], keep: int
) -> list[tuple[float, int]]:
    """The ``(objective value, runIx)`` of the best ``keep`` stored rows that can hold a curve
    (not aborted, with trades), best first: what ``keep_best`` held when they were written."""
    if keep <= 0:
        return []
    ranked = sorted(
        (
            (objective.score(row.metrics), row.run_ix)
            for row in rows
            if not row.aborted and row.metrics.trades > 0
        ),
        key=lambda pair: _rank_key(objective, *pair),
    )
    return ranked[:keep]


def _run_fold(shard: _Shard, job: JobRecord, progress: JobProgress) -> ShardOutcome:
    spec = shard.spec
    assert spec.walk_forward is not None
    fold_ix = shard.shard.fold
    if fold_ix is None:
        raise ExecuteFailed(f"shard {job.job_id} of a walk-forward sweep names no fold")
    with shard.ctx.database.unit_of_work() as uow:
        if SweepRowRepository(uow.session).get(shard.sweep_id, fold_ix) is not None:
            return ShardOutcome(fold=fold_ix)
    windows = fold_windows(
        shard.data.rows, spec.walk_forward.folds, spec.walk_forward.in_sample_pct
    )
    in_from, in_to, out_to = windows[fold_ix]
    progress.size(len(shard.vectors) + 1)
    order = run_order(lattices(spec), shard.vectors, range(len(shard.vectors)))
    ran: list[Trial] = []
    for at in range(0, len(order), BATCH_VECTORS):
        progress.check()
        prepared_cache.used(shard.ctx, spec.prepare_job_id)  # still in use: keep it
        batch = [(ix, shard.vectors[ix]) for ix in order[at : at + BATCH_VECTORS]]
        ran += (
            t for t in shard.trials(batch, (in_from, in_to), _never, progress) if not t.row.aborted
        )
        progress.update(at + len(batch))
    best: Trial | None = None
    for trial in sorted(ran, key=lambda t: t.row.run_ix):  # the first best in runIx order wins
        if best is None or _better(spec.objective, trial.objective_value, best.objective_value):
            best = trial
    if best is None:
        raise ExecuteFailed(f"fold {fold_ix}: every in-sample run aborted")
    progress.check()
    oos = shard.trial(fold_ix, best.row.params, (in_to, out_to), _always, progress)
    in_start, cut = shard.data.window_ms((in_from, in_to))
    out_end = shard.data.window_ms((in_to, out_to))[1]
    fold = FoldOutcome(
        fold_ix=fold_ix,
        in_sample_from=in_from,
        in_sample_to=in_to,
        out_of_sample_to=out_to,
        params=best.row.params,
        in_sample_sharpe=float(best.row.metrics.sharpe),
        vectors_run=len(shard.vectors),
        times_ms=(in_start, cut, out_end),
    )
    row = replace(oos.row, fold=fold, curve=oos.curve.stored() if oos.curve else None)
    with shard.ctx.database.unit_of_work() as uow:
        added = SweepRowRepository(uow.session).add_many([row], shard.ctx.clock())
        if added:
            SweepCurveRepository(uow.session).grow(
                shard.sweep_id, job.user_id, added, shard.ctx.clock()
            )
    if added:
        sweep_curve_cache.reclaim(shard.ctx)
    progress.update(len(shard.vectors) + 1)
    return ShardOutcome(fold=fold_ix)


def finish_sweep_if_done(ctx: WorkerContext, shard: JobRecord) -> None:
    """After a shard ends: the last one to end closes the sweep (``SweepJobRepository``)."""
    if shard.kind is not JobKind.SWEEP_SHARD:
        return
    sweep_id = shard.spec_as(SweepShardSpec).sweep_id
    with ctx.database.unit_of_work() as uow:
        SweepJobRepository(uow.session).close_if_done(sweep_id, ctx.clock())
