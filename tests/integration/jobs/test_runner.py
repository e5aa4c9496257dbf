"""The job runner on real parts: a worker context over a real SQLite database and object store,
the ``sim`` exchange's generated hours, and the typed specs and results stored in the job row.
No Dask, no HTTP: ``process_job`` is what a Dask worker calls."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backtestd.api.schemas.backtests import BacktestJobState, ExecuteResults, PrepareJobState
from backtestd.domain.backtest_results import ExecuteResult, PrepareOutcome
from backtestd.domain.backtests import ExecuteSpec, PrepareSpec
from backtestd.domain.job_specs import JobSpec
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.domain.marketdata import DataKind, DataType, Instrument
from backtestd.jobs.context import WorkerContext, build_worker_context
from backtestd.jobs.handlers.trial import load_prepared
from backtestd.jobs.runner import process_job
from backtestd.services.job_views import execute_result
from backtestd.settings import Settings
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.objects.keys import prepared_manifest_key

HOUR = timedelta(hours=1)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[WorkerContext]:
    context = build_worker_context(Settings(data_dir=tmp_path))
    migrate(context.database)
    yield context
    context.engines.close()
    context.database.dispose()


def _add(ctx: WorkerContext, job_id: str, kind: JobKind, spec: JobSpec, data_type: str) -> None:
    with ctx.database.unit_of_work() as uow:
        JobRepository(uow.session).add(
            JobRecord(
                job_id=job_id,
                user_id="u1",
                kind=kind,
                exchange_id="sim",
                data_type=data_type,
                spec=spec,
                status=JobStatus.NEW,
                created_at=datetime.now(UTC),
            )
        )


def _job(ctx: WorkerContext, job_id: str) -> JobRecord:
    with ctx.database.unit_of_work() as uow:
        job = JobRepository(uow.session).get(job_id)
    assert job is not None
    return job


def _two_hours_of_klines() -> PrepareSpec:
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - 2 * HOUR
    return PrepareSpec("sim", DataType.KLINE, "BTC/USDT", end - 2 * HOUR, end, "1m", 60_000)


def test_a_prepare_completes_with_its_coverage_stored_typed_and_its_columns_readable(
    ctx: WorkerContext,
) -> None:
    spec = _two_hours_of_klines()
    _add(ctx, "prep1", JobKind.PREPARE, spec, "kline")

    assert process_job(ctx, "prep1") == "Completed"

    job = _job(ctx, "prep1")
    assert job.spec == spec  # the stored spec reads back as the spec it was
    outcome = job.result_as(PrepareOutcome)
    assert outcome is not None
    assert (outcome.total_hours, outcome.hours_with_data) == (2, 2)
    assert outcome.coverage_ratio == 1.0
    assert outcome.hours_without_data == ()
    assert outcome.data_from is not None
    assert outcome.data_to is not None
    data = load_prepared(ctx, "prep1", "kline")
    # One bar per minute that holds a tick, counted here from the store's own tick hours.
    minutes: set[int] = set()
    for hour in (spec.start, spec.start + HOUR):
        frame = ctx.store.read_frame("sim", Instrument.parse("BTC/USDT"), DataKind.TICKERS, hour)
        assert frame is not None
        minutes.update(int(ts) // 60_000 for ts in frame.columns["ts"])
    # The data spans the first to the last minute that traded (a quiet minute at either end
    # of the range is a real outcome of the sim's market, not a shortfall).
    assert spec.start <= outcome.data_from <= outcome.data_to < spec.end
    assert int(outcome.data_from.timestamp()) // 60 == min(minutes)
    assert int(outcome.data_to.timestamp()) // 60 == max(minutes)
    assert 100 < data.rows == len(minutes) <= 120
    assert (data.from_ms, data.to_ms) == (
        int(spec.start.timestamp() * 1000),
        int(spec.end.timestamp() * 1000),
    )
    wire = PrepareJobState.of(job).model_dump(exclude_unset=True)
    assert wire["status"] == "Completed"
    assert wire["totalHours"] == 2
    assert wire["hoursWithoutData"] == []
    assert wire["dataFrom"] == outcome.data_from.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert wire["contextId"].endswith(":prep1:btc/usdt")


def test_a_job_cancelled_before_it_started_ends_aborted_and_runs_nothing(
    ctx: WorkerContext,
) -> None:
    _add(ctx, "prep2", JobKind.PREPARE, _two_hours_of_klines(), "kline")
    with ctx.database.unit_of_work() as uow:
        JobRepository(uow.session).request_cancel("prep2", datetime.now(UTC))

    assert process_job(ctx, "prep2") == "Aborted"

    job = _job(ctx, "prep2")
    assert job.status_detail == "cancelled before it started"
    assert job.result is None
    assert ctx.objects.get(prepared_manifest_key("prep2")) is None


def test_an_execute_of_missing_prepared_data_fails_with_a_reason_and_still_names_its_strategy(
    ctx: WorkerContext,
) -> None:
    _add(ctx, "exe1", JobKind.EXECUTE, ExecuteSpec("never-prepared", "strat-1"), "kline")

    assert process_job(ctx, "exe1") == "Failed"

    job = _job(ctx, "exe1")
    assert job.status_detail == "prepared data of never-prepared is missing; prepare again"
    served = ExecuteResults.of(execute_result(job), None).model_dump(exclude_unset=True)
    assert served == {
        "strategyId": "strategy:u1:strat-1",
        "instrument": "",
        "hostName": "",
        "iops": 0,
    }
    assert isinstance(execute_result(job), ExecuteResult)


def test_a_finished_job_is_left_as_it_is_when_run_again(ctx: WorkerContext) -> None:
    _add(ctx, "prep3", JobKind.PREPARE, _two_hours_of_klines(), "kline")
    assert process_job(ctx, "prep3") == "Completed"
    first = _job(ctx, "prep3")

    assert process_job(ctx, "prep3") == "Completed"  # a resubmission after a restart

    again = _job(ctx, "prep3")
    assert (again.end_time, again.attempts, again.result) == (
        first.end_time,
        first.attempts,
        first.result,
    )
    assert process_job(ctx, "no-such-job") == "missing"


def test_prepared_data_of_an_earlier_release_asks_for_a_new_prepare(ctx: WorkerContext) -> None:
    earlier = {  # the manifest layout before typed specs: wire-like names, flat
        "jobId": "old",
        "exchange": "sim",
        "type": "kline",
        "instrument": "BTC/USDT",
        "from": "2026-01-01T00:00:00+00:00",
        "to": "2026-01-01T01:00:00+00:00",
        "cadence": "1m",
        "cadenceMs": 60000,
        "rows": 60,
        "columns": ["ts", "closeTs", "close"],
    }
    ctx.objects.put(prepared_manifest_key("old"), json.dumps(earlier).encode())
    _add(ctx, "exe2", JobKind.EXECUTE, ExecuteSpec("old", "strat-1"), "kline")

    assert process_job(ctx, "exe2") == "Failed"

    assert _job(ctx, "exe2").status_detail == (
        "prepared data of old was written by an earlier release of the service; "
        "prepare the range again"
    )


def test_a_job_whose_worker_kept_dying_fails_with_the_reason_instead_of_running_again(
    ctx: WorkerContext,
) -> None:
    """A job started ``max_job_attempts`` times that never ended (its worker killed, say, for
    memory) is failed on its next start, not run a fourth time."""
    _add(ctx, "prep4", JobKind.PREPARE, _two_hours_of_klines(), "kline")
    _add(ctx, "prep5", JobKind.PREPARE, _two_hours_of_klines(), "kline")
    with ctx.database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        for job_id, starts in (("prep4", 3), ("prep5", 2)):
            for _ in range(starts):  # each start of a worker that then died
                assert repo.mark_started(job_id, datetime.now(UTC))

    assert process_job(ctx, "prep4") == "Failed"
    assert process_job(ctx, "prep5") == "Completed"  # its third start: still within the bound

    failed = _job(ctx, "prep4")
    assert failed.status_detail is not None
    assert failed.status_detail.startswith("the job was started 3 times and its worker died")
    assert ctx.objects.get(prepared_manifest_key("prep4")) is None  # nothing was run
    assert BacktestJobState.of(failed).retryable is False
    assert _job(ctx, "prep5").attempts == 3
