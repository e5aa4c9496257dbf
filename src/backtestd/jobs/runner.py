"""Runs one job to a terminal state; the function Dask workers execute.

Every job is idempotent: a resubmitted job (after a restart or a lost worker) starts over and
overwrites the same objects, and terminal states are final, so running it twice is harmless.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from backtestd.datasets.csv_numbers import warm_up as warm_up_csv_parser
from backtestd.domain.job_specs import JobResult
from backtestd.domain.jobs import RUNNABLE_KINDS, JobKind, JobRecord, JobStatus
from backtestd.engine.kernel import warm_up as warm_up_kernels
from backtestd.errors import ServiceUnavailable
from backtestd.jobs.context import WorkerContext, build_worker_context, context_for
from backtestd.jobs.handlers.datasets import run_dataset_import, run_dataset_ingest
from backtestd.jobs.handlers.execute import run_execute
from backtestd.jobs.handlers.prepare import run_prepare
from backtestd.jobs.handlers.sweep import finish_sweep_if_done, run_sweep_shard
from backtestd.jobs.progress import JobCancelled, JobFailed, JobProgress, JobYielded
from backtestd.jobs.worker_memory import keep_freed_memory
from backtestd.storage.db.repositories.jobs import JobRepository

log = logging.getLogger(__name__)

Handler = Callable[[WorkerContext, JobRecord, JobProgress], JobResult]
HANDLERS: dict[JobKind, Handler] = {
    JobKind.PREPARE: run_prepare,
    JobKind.EXECUTE: run_execute,
    JobKind.SWEEP_SHARD: run_sweep_shard,
    JobKind.DATASET_INGEST: run_dataset_ingest,
    JobKind.DATASET_IMPORT: run_dataset_import,
}


@dataclass(frozen=True)
class Yielded:
    """A job that gave its worker back and is ``New`` again: the executor queues it anew with
    ``priority`` (from its owner's fair-share rank, as on admission)."""

    priority: int


JobOutcome = str | Yielded
"""The state a run left its job in (``Completed``, ``Failed``, ...), or :class:`Yielded`."""


def run_job(settings_json: str, job_id: str) -> JobOutcome:
    """Dask entry point: the worker's context is built once per process."""
    return process_job(context_for(settings_json, build_worker_context), job_id)


def warm_worker(settings_json: str) -> None:
    """Make a fresh worker process ready for its first trial: build its context, start its
    engine host and load the compiled portfolio and metrics kernels and the ingest's CSV
    number parser (about 1 s of numba cache loading per process), and have it keep the memory
    its trials free (``worker_memory``). Called once when a worker joins (``DaskExecutor``);
    a failure is only logged, since the first job builds whatever is still missing."""
    try:
        keep_freed_memory()
        ctx = context_for(settings_json, build_worker_context)
        load_compiled_code()
        ctx.engines.start()
    except Exception:
        log.warning("worker warm-up failed; the first job will pay for it", exc_info=True)


def load_compiled_code() -> None:
    """What every worker process loads the same way, whoever it serves: the numba kernels, the
    CSV parser and pyarrow's first array. A worker forked from the fork server finds them
    loaded there already (``executors.worker_image``) and this costs nothing."""
    warm_up_kernels()
    warm_up_csv_parser()
    _warm_up_arrow()


def _warm_up_arrow() -> None:
    """pyarrow looks for pandas on its first array and imports it when installed (0.5-1.5 s
    of CPU): pay that here rather than in the worker's first dataset ingest."""
    import pyarrow as pa

    pa.array([0.0]).to_numpy()


def process_job(ctx: WorkerContext, job_id: str) -> JobOutcome:
    """Run the stored job ``job_id``, whatever its kind (prepare, execute, sweep shard, dataset
    ingest or import), to a terminal state; returns that state. A job already terminal, or
    cancelled before it started, is left as it is."""
    with ctx.database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        job = repo.get(job_id)
        if job is None or job.status.terminal:
            return job.status.value if job else "missing"
        started = repo.mark_started(job_id, ctx.clock())
    try:
        if not started:
            return _finish(ctx, job_id, JobStatus.ABORTED, "cancelled before it started", None)
        if job.attempts >= ctx.settings.max_job_attempts:
            return _finish(ctx, job_id, JobStatus.FAILED, _gave_up(job.attempts), None)
        return _run(ctx, job)
    finally:
        finish_sweep_if_done(ctx, job)


def _gave_up(attempts: int) -> str:
    """Why a job that kept losing its worker is not run again (the usual cause first)."""
    return (
        f"the job was started {attempts} times and its worker died each time before it ended "
        "(most often out of memory: a range or dataset too large for a worker); it is not "
        "run again: prepare a shorter range, or ask the operator to raise the workers' memory"
    )


def _run(ctx: WorkerContext, job: JobRecord) -> JobOutcome:
    job_id = job.job_id
    progress = JobProgress(ctx.database, job_id)
    try:
        result = HANDLERS[job.kind](ctx, job, progress)
        return _finish(ctx, job_id, JobStatus.COMPLETED, None, result)
    except JobCancelled:
        return _finish(ctx, job_id, JobStatus.ABORTED, "cancelled on request", None)
    except JobYielded:
        return _yield(ctx, job)
    except JobFailed as exc:
        return _finish(ctx, job_id, JobStatus.FAILED, str(exc), exc.results)
    except ServiceUnavailable:
        # The database went away mid-job: not the job's fault, so not its final answer. The
        # task errs, the job stays unfinished, and recovery resubmits it once the database
        # is back (services/job_recovery.py).
        log.warning("job %s interrupted: the database is unavailable", job_id)
        raise
    except Exception as exc:
        log.exception("job %s failed", job_id)
        return _finish(ctx, job_id, JobStatus.FAILED, f"internal error: {exc}", None)


def _yield(ctx: WorkerContext, job: JobRecord) -> JobOutcome:
    """Put a job that gave its worker back in the queue again, ranked as admission ranks a
    new job of its owner; a cancel requested meanwhile ends it instead."""
    with ctx.database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        if repo.mark_yielded(job.job_id):
            # Admission would rank it -(n - 1) for an owner with n active jobs; one lower here,
            # because Dask runs a task submitted from inside a running task ahead of equal
            # priorities ("sub-tasks before their parents"), which would let the yielded job
            # go straight back in front of the job it yielded to.
            priority = -repo.count_active(RUNNABLE_KINDS, job.user_id)
            log.info(
                "job %s gives its worker back (queued again, priority %d)", job.job_id, priority
            )
            return Yielded(priority)
    return _finish(ctx, job.job_id, JobStatus.ABORTED, "cancelled on request", None)


def _finish(
    ctx: WorkerContext,
    job_id: str,
    status: JobStatus,
    detail: str | None,
    result: JobResult | None,
) -> str:
    with ctx.database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        if repo.finish(job_id, status, ctx.clock(), detail, result):
            return status.value
        # Cancel wins: a job cancelled while it ran ends Aborted, with what it computed.
        if repo.finish(job_id, JobStatus.ABORTED, ctx.clock(), "cancelled on request", result):
            return JobStatus.ABORTED.value
        current = repo.get(job_id)
    return current.status.value if current else "missing"
