"""What a job's read routes show beyond its row: the retry rule, the identity a failed execute
stands in with, and the ``JobState`` every prepare, execute and sweep state shares."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from tests.support.job_specs import execute_spec, prepare_spec

from backtestd.api.schemas.backtests import BacktestJobState
from backtestd.domain.backtest_results import ExecuteResult
from backtestd.domain.job_specs import JobSpec
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.services.job_views import execute_result, is_retryable

STARTED = datetime(2026, 3, 1, 12, 0, 5, tzinfo=UTC)


def _job(
    spec: JobSpec,
    status: JobStatus = JobStatus.COMPLETED,
    detail: str | None = None,
    result: ExecuteResult | None = None,
) -> JobRecord:
    kind = JobKind.PREPARE if spec.kind is JobKind.PREPARE else JobKind.EXECUTE
    return JobRecord(
        job_id="j1",
        user_id="u1",
        kind=kind,
        exchange_id="sim",
        data_type="ticker",
        spec=spec,
        status=status,
        created_at=STARTED,
        size=10,
        completed=4,
        status_detail=detail,
        start_time=STARTED,
        result=result,
    )


@pytest.mark.parametrize(
    ("status", "detail", "retryable"),
    [
        (JobStatus.FAILED, "internal error: disk full", True),
        (JobStatus.FAILED, "the engine host died while running it", True),
        (JobStatus.FAILED, "line 3: division by zero", False),  # the strategy's own failure
        (JobStatus.COMPLETED, "internal error", False),
        (JobStatus.ABORTED, None, False),
    ],
)
def test_only_the_services_own_failures_are_retryable(
    status: JobStatus, detail: str | None, retryable: bool
) -> None:
    assert is_retryable(_job(execute_spec(), status, detail)) is retryable


def test_a_failed_execute_without_a_stored_result_names_its_strategy() -> None:
    result = execute_result(_job(execute_spec("strat-9"), JobStatus.FAILED, "internal error"))
    assert result == ExecuteResult(strategy_context="strategy:u1:strat-9")


def test_a_stored_result_is_served_as_stored() -> None:
    stored = ExecuteResult("strategy:u1:s", instrument="BTC/USDT", iops=5.0)
    assert execute_result(_job(execute_spec("s"), result=stored)) is stored


def test_the_job_state_names_a_prepares_instrument_in_its_context_id() -> None:
    prepare = BacktestJobState.of(_job(prepare_spec("ETH/USDT")), completed=7)
    execute = BacktestJobState.of(_job(execute_spec()))
    assert prepare.contextId == "jctx:ticker:u1:sim:j1:eth/usdt"
    assert execute.contextId == "jctx:ticker:u1:sim:j1"
    # A completed job did all of its work (issue 27: it used to show 4 of 10); a caller's own
    # count (a sweep's rows) still wins.
    assert (prepare.completed, execute.completed, execute.size) == (7, 10, 10)
    assert execute.startTime == "2026-03-01T12:00:05Z"
    assert execute.endTime is None
    assert execute.retryable is False


@pytest.mark.parametrize(
    ("status", "completed"),
    [
        (JobStatus.STARTED, 4),
        (JobStatus.FAILED, 4),
        (JobStatus.ABORTED, 4),
        (JobStatus.COMPLETED, 10),
    ],
)
def test_only_a_completed_job_reports_its_full_progress(status: JobStatus, completed: int) -> None:
    state = BacktestJobState.of(_job(execute_spec(), status=status))
    assert (state.size, state.completed) == (10, completed)
