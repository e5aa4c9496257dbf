"""The wire ``JobState`` of a job row: one builder for prepare, execute and sweep states."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from backtestd.domain.backtest_results import ExecuteResult
from backtestd.domain.jobs import JobRecord, JobStatus
from backtestd.domain.timefmt import iso_z

RETRYABLE_DETAILS = ("internal error", "the engine host died")
"""Failures of the service itself (not of the strategy or the request): submitting the same
job again may succeed; nothing else would."""


def job_state(job: JobRecord, completed: int | None = None) -> dict[str, Any]:
    """``completed`` overrides the row's counter where the caller counts better (a sweep counts
    its stored rows, which its shards write, not its own job row)."""
    instrument = str(job.spec.get("instrument", "")).lower()
    return {
        "contextId": f"jctx:{job.data_type}:{job.user_id}:{job.exchange_id}:{job.job_id}"
        + (f":{instrument}" if instrument else ""),
        "status": job.status.value,
        "statusDetail": job.status_detail,
        "size": job.size,
        "completed": job.completed if completed is None else completed,
        "startTime": iso_z(job.start_time),
        "endTime": iso_z(job.end_time),
        "retryable": job.status is JobStatus.FAILED
        and (job.status_detail or "").startswith(RETRYABLE_DETAILS),
    }


def execute_result(job: JobRecord) -> ExecuteResult:
    """A finished execute's result, as the handler stored it (a run that failed before it
    loaded its data stored no identity; the job's own ids stand in)."""
    return ExecuteResult.from_json(
        job.result,
        strategy_context=ExecuteResult.context_of(job.user_id, str(job.spec.get("strategyId", ""))),
    )


def execute_results(job: JobRecord, url_for: Callable[[str], str | None]) -> dict[str, Any]:
    """A finished execute's wire ``results``, the stored signals key turned into a signed link."""
    result = execute_result(job)
    key = result.signals.key if result.signals else None
    return result.to_wire(url_for(key) if key else None)


def prepare_state(job: JobRecord) -> dict[str, Any]:
    """A prepare's state, with its coverage report once it ended."""
    body = job_state(job)
    if job.status.terminal:
        body.update({"dataFrom": None, "dataTo": None, **job.result})
    return body
