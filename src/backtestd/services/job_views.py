"""What the read routes of a job need beyond its row: the retry rule and a finished execute's
result with its identity filled in. The wire shapes are built in ``api/schemas``."""

from __future__ import annotations

from dataclasses import replace

from backtestd.domain.backtest_results import ExecuteResult
from backtestd.domain.backtests import ExecuteSpec
from backtestd.domain.jobs import JobRecord, JobStatus

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
