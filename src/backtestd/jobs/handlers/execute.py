"""Execute: run a registered strategy over a prepared dataset, then the portfolio and metrics."""

from __future__ import annotations

import io
import json
import os
import socket
from dataclasses import replace
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.parquet as pq

from backtestd.domain.backtest_results import ExecuteResult, SignalsOutcome
from backtestd.domain.backtests import ExecuteSpec
from backtestd.domain.jobs import JobRecord
from backtestd.domain.quotas import storage_overflow
from backtestd.domain.timefmt import iso_z
from backtestd.engine.equity_curve import build_equity_curve, equity_points
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.handlers.trial import RunBudget, TrialFailed, evaluate, load_prepared
from backtestd.jobs.progress import JobCancelled, JobFailed, JobProgress
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from backtestd.storage.objects.keys import signals_key
from backtestd.strategy.failures import describe_run_failure
from backtestd.strategy.jvm import RunFailure, RunFailureKind, RunRequest, RunResult

MAX_NOTICES = 50


class ExecuteFailed(JobFailed):
    """The run cannot produce results; the message is the job's ``statusDetail``."""


def host_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _store_signals(
    ctx: WorkerContext, job: JobRecord, spec: ExecuteSpec, run: RunResult
) -> SignalsOutcome:
    """Write the signals parquet, counted against the user's storage pool first.

    The count and the ``maxTotalStorageBytes`` check (the cap travels in the job's spec as it
    was when the user asked) happen in one transaction before the object is written. Over the
    cap nothing is stored and the result says ``signalsUpload: Failed`` with the reason; when
    the strategy was deleted during the run, ``Skipped`` (its signals would be revoked anyway).
    The metrics are kept either way.
    """
    table = pa.table(
        {
            "ts": pa.array(run.signal_ts, pa.int64()),
            "side": pa.array(run.signal_side, pa.int8()),
            "price": pa.array(run.signal_price, pa.float64()),
            "info": pa.array([json.dumps(i) if i else None for i in run.info], pa.string())
            if len(run.info) == run.signal_count
            else pa.nulls(run.signal_count, pa.string()),
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    blob = sink.getvalue()
    key = signals_key(job.user_id, job.job_id)
    now = datetime.now(UTC)
    item = f"signals:{job.job_id}"
    try:
        with ctx.database.unit_of_work() as uow:
            usage = UsageRepository(uow.session)
            usage.lock_user(job.user_id)
            strategies = StrategyRepository(uow.session)
            if strategies.active_of(job.user_id, spec.strategy_id) is None:
                return _skipped(run.signal_count)
            usage.record(item, job.user_id, "signals", len(blob), now)
            _check_storage(job, spec, usage, len(blob), run.signal_count)
    except _OverCap as over:  # the transaction rolled back: nothing counted, nothing stored
        return SignalsOutcome(run.signal_count, "Failed", reason=str(over))
    try:
        ctx.objects.put(key, blob)
    except BaseException:
        with ctx.database.unit_of_work() as uow:
            UsageRepository(uow.session).release(item, datetime.now(UTC))
        raise
    with ctx.database.unit_of_work() as uow:  # deleted between the count and the write?
        active = StrategyRepository(uow.session).active_of(job.user_id, spec.strategy_id)
        if active is None:
            UsageRepository(uow.session).release(item, datetime.now(UTC))
    if active is None:
        ctx.objects.delete(key)
        return _skipped(run.signal_count)
    return SignalsOutcome(
        run.signal_count, "Done", signals_id=job.job_id, key=key, uploaded_at=iso_z(now)
    )


def _skipped(count: int) -> SignalsOutcome:
    return SignalsOutcome(
        count, "Skipped", reason="the strategy was deleted while the execution ran"
    )


class _OverCap(Exception):
    """Storing the signals would exceed the storage pool (the message says by how much)."""


def _check_storage(
    job: JobRecord, spec: ExecuteSpec, usage: UsageRepository, size: int, count: int
) -> None:
    limit = spec.storage_limit
    if limit is None:  # jobs queued before the cap travelled with them
        return
    problem = storage_overflow(
        usage.usage_of(job.user_id),
        limit.max_total_storage_bytes,
        limit.tier,
        size,
        f"storing the {count} signals of this execution",
    )
    if problem:
        raise _OverCap(problem)


def run_execute(ctx: WorkerContext, job: JobRecord, progress: JobProgress) -> ExecuteResult:
    spec = job.spec_as(ExecuteSpec)
    with ctx.database.unit_of_work() as uow:
        strategy = StrategyRepository(uow.session).get(spec.strategy_id)
    identity = ExecuteResult(
        strategy_context=ExecuteResult.context_of(job.user_id, spec.strategy_id),
        host_name=host_name(),
        params=spec.params or None,
    )
    try:
        data = load_prepared(ctx, spec.prepare_job_id, job.data_type)
    except TrialFailed as exc:
        raise ExecuteFailed(str(exc)) from exc
    identity = replace(identity, instrument=data.instrument.pair)
    if strategy is None:
        raise ExecuteFailed(f"strategy {spec.strategy_id} no longer exists", identity)
    progress.size(3)
    budget = RunBudget.of(ctx, spec.run_limit)
    request = RunRequest.of_strategy(
        strategy,
        data.feed,
        data.columns,
        data.instrument,
        params=spec.params,
        cpu_limit_s=budget.cpu_s,
        wall_limit_s=budget.wall_s,
    )
    try:
        run = ctx.engines.run(request, progress.cancel_requested)
    except RunFailure as failure:
        if failure.kind is RunFailureKind.CANCELLED:
            raise JobCancelled(job.job_id) from failure
        message = describe_run_failure(strategy, failure)
        if failure.declared_properties and "declared properties" not in message:
            message += f" (declared properties: {', '.join(failure.declared_properties)})"
        raise ExecuteFailed(message, identity) from failure
    progress.update(1)
    portfolio, metrics = evaluate(data, run, spec.base_config)
    equity_curve = None
    if portfolio.trades.count:
        options = spec.equity_curve
        ts, eq = equity_points(portfolio)
        equity_curve = build_equity_curve(
            ts,
            eq,
            resample_to=options.resample,
            delta=options.differential,
            out_mode=options.out_mode,
        )
    progress.update(2)
    result = replace(
        identity,
        iops=round(run.events_per_second, 1),
        metrics=metrics if metrics.total_trades else None,
        equity_curve=equity_curve,
        notices=tuple(run.notices[:MAX_NOTICES]),
        notices_truncated=len(run.notices) - MAX_NOTICES
        if len(run.notices) > MAX_NOTICES
        else None,
        signals=_store_signals(ctx, job, spec, run) if spec.store_signals else None,
    )
    return result
