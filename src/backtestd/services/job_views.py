"""What the read routes of a job need beyond its row: the retry rule and a finished execute's
result with its identity filled in. The wire shapes are built in ``api/schemas``."""

from __future__ import annotations

from dataclasses import replace

from backtestd.domain.backtest_results import ExecuteResult
from backtestd.domain.backtests import ExecuteSpec
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.domain.sweeps import SweepSpec

RETRYABLE_DETAILS = ("internal error", "the engine host died")
"""Failures of the service itself (not of the strategy or the request): submitting the same
job again may succeed; nothing else would."""


def is_retryable(job: JobRecord) -> bool:
    return job.status is JobStatus.FAILED and (job.status_detail or "").startswith(
        RETRYABLE_DETAILS
    )


def execute_result(job: JobRecord) -> ExecuteResult:
    """A finished execute's result, as the handler stored it (a run that failed before it
    loaded its data stored no identity; the job's own ids stand in)."""
    result = job.result_as(ExecuteResult) or ExecuteResult()
    if result.strategy_context:
        return result
    spec = job.spec_as(ExecuteSpec)
    return replace(result, strategy_context=ExecuteResult.context_of(job.user_id, spec.strategy_id))


def job_path(job: JobRecord) -> str | None:
    """Where the caller reads ``job`` under ``/v1``, for the kinds a backtest path serves
    (``None`` for the others: shards and dataset jobs have no path of their own)."""
    base = f"/backtest/{job.exchange_id}/{job.data_type}"
    if job.kind is JobKind.PREPARE:
        return f"{base}/prepare/{job.job_id}"
    if job.kind is JobKind.EXECUTE:
        return f"{base}/execute/{job.job_id}"
    if job.kind is JobKind.SWEEP and isinstance(job.spec, SweepSpec):
        return f"{base}/executeSweep/{job.spec.prepare_job_id}/{job.job_id}"
    return None


def not_found_hint(job: JobRecord | None, user_id: str) -> str:
    """The end of a 404 for a job id asked on the wrong path: where the caller's own job is.
    Empty for an unknown id and for another user's job, whose existence is never revealed."""
    if job is None or job.user_id != user_id:
        return ""
    path = job_path(job)
    if path is None:
        return ""
    article = "an" if job.kind.value[0] in "aeiou" else "a"
    return f"; {job.job_id} is {article} {job.kind.value} job: read it at GET /v1{path}"
