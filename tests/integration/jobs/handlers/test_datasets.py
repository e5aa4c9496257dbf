"""The dataset ingest and import jobs (``jobs/handlers/datasets.py``) on real parts: the
service submits on SQLite and the local object store, a worker context runs the job, and the
test reads what a user reads — the upload or import state, the dataset, its versions and
storage. No HTTP, no Dask."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import (
    DatasetImportSpec,
    DatasetStatus,
    ImportRequest,
    SessionStatus,
    TimestampUnit,
    VersionOutcome,
)
from backtestd.domain.jobs import JobStatus
from backtestd.domain.marketdata import DataKind
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.handlers.datasets import run_dataset_import, run_dataset_ingest
from backtestd.jobs.progress import JobFailed
from backtestd.jobs.runner import process_job
from backtestd.services.container import Services
from backtestd.settings import DEFAULT_TIERS, Settings
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from tests.support.dataset_jobs import (
    CANDLE_GAP,
    candle_csv,
    candle_rows,
    dataset_services,
    job,
    upload,
)

DANA = Principal("handler-dana", "pro")
UNSORTED = b"timestamp,close\n2025-03-04T00:01:00Z,1\n2025-03-04T00:00:00Z,2\n"


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[Services, WorkerContext]]:
    with dataset_services(Settings(data_dir=tmp_path / "data")) as built:
        yield built


def _ingest(
    parts: tuple[Services, WorkerContext], dataset_id: str, body: bytes, spool: Path
) -> tuple[str, str, VersionOutcome]:
    services, ctx = parts
    upload_id, job_id = upload(services, DANA, dataset_id, body, spool)
    return upload_id, job_id, run_dataset_ingest(ctx, *job(ctx, job_id))


def _storage_bytes(services: Services) -> int:
    with services.database.unit_of_work() as uow:
        return UsageRepository(uow.session).usage_of(DANA.user_id).dataset_bytes_used


def test_an_ingested_upload_is_the_current_version_with_its_cadence_and_gaps(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    services, ctx = parts
    created = services.datasets.create(DANA, "candles", "btc/usdt")
    dataset_id = created.dataset.dataset_id
    upload_id, job_id, outcome = _ingest(parts, dataset_id, candle_csv(), tmp_path)

    assert outcome == VersionOutcome(dataset_id, f"dsv_{job_id}", candle_rows())
    state = services.dataset_uploads.upload_state(DANA, dataset_id, upload_id)
    assert (state.status, state.error) == (SessionStatus.READY, None)
    version = state.version
    assert version is not None
    assert version.version_id == outcome.version_id
    assert (version.rows, version.cadence) == (candle_rows(), "1m")
    assert (version.gaps, version.largest_gap_steps) == (1, len(CANDLE_GAP))
    assert version.timestamp_unit is TimestampUnit.ISO
    assert state.data_url
    view = services.datasets.get(DANA, dataset_id)
    assert view.dataset.status is DatasetStatus.READY
    assert view.dataset.kind is DataKind.KLINES  # open, high and low: candles
    assert view.dataset.current_version_id == version.version_id
    assert _storage_bytes(services) == version.bytes
    assert ctx.objects.size(state.session.object_key) is None  # the upload itself is gone


def test_a_refused_upload_fails_its_session_and_the_dataset_but_keeps_the_current_version(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    services, ctx = parts
    dataset_id = services.datasets.create(DANA, "keeps", "BTC/USDT").dataset.dataset_id
    _, _, first = _ingest(parts, dataset_id, candle_csv(), tmp_path)
    stored = _storage_bytes(services)

    upload_id, job_id = upload(services, DANA, dataset_id, UNSORTED, tmp_path)
    assert process_job(ctx, job_id) == JobStatus.FAILED.value

    with services.database.unit_of_work() as uow:
        failed_job = JobRepository(uow.session).get(job_id)
    assert failed_job is not None
    assert failed_job.status_detail is not None
    assert "row 2" in failed_job.status_detail
    state = services.dataset_uploads.upload_state(DANA, dataset_id, upload_id)
    assert state.status is SessionStatus.FAILED
    assert state.error == failed_job.status_detail
    assert "not after the previous row" in (state.error or "")
    assert state.version is None
    view = services.datasets.get(DANA, dataset_id)
    assert view.dataset.status is DatasetStatus.FAILED
    assert view.dataset.error == state.error
    assert view.dataset.current_version_id == first.version_id  # still preparable
    assert view.version is not None
    assert _storage_bytes(services) == stored

    # The next good upload makes the dataset ready again, on a new version.
    _, _, second = _ingest(parts, dataset_id, gzip.compress(candle_csv()), tmp_path)
    view = services.datasets.get(DANA, dataset_id)
    assert (view.dataset.status, view.dataset.error) == (DatasetStatus.READY, None)
    assert view.dataset.current_version_id == second.version_id != first.version_id
    assert _storage_bytes(services) == 2 * stored  # every stored version counts


def test_a_resubmitted_ingest_answers_its_version_again_and_moves_nothing(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    services, ctx = parts
    dataset_id = services.datasets.create(DANA, "rerun", "BTC/USDT").dataset.dataset_id
    _, first_job, first = _ingest(parts, dataset_id, candle_csv(), tmp_path)
    _, _, second = _ingest(parts, dataset_id, gzip.compress(candle_csv()), tmp_path)
    failed_upload, failed_job = upload(services, DANA, dataset_id, UNSORTED, tmp_path)
    with pytest.raises(JobFailed, match="row 2") as first_failure:
        run_dataset_ingest(ctx, *job(ctx, failed_job))

    # A lost worker's job runs again after it ended: same answers, no state moves back.
    assert run_dataset_ingest(ctx, *job(ctx, first_job)) == first
    with pytest.raises(JobFailed) as again:
        run_dataset_ingest(ctx, *job(ctx, failed_job))
    assert str(again.value) == str(first_failure.value)
    view = services.datasets.get(DANA, dataset_id)
    assert view.dataset.status is DatasetStatus.FAILED
    assert view.dataset.current_version_id == second.version_id
    state = services.dataset_uploads.upload_state(DANA, dataset_id, failed_upload)
    assert state.status is SessionStatus.FAILED


def test_a_version_over_the_tiers_dataset_bytes_fails_and_nothing_is_stored(
    tmp_path: Path,
) -> None:
    """A gzip body well inside the cap whose stored version is not (a float64 per value)."""
    small = DEFAULT_TIERS["pro"].model_copy(update={"max_dataset_bytes": 3_000})
    settings = Settings(data_dir=tmp_path / "data", tiers={**DEFAULT_TIERS, "pro": small})
    rows = "".join(f"{1_740_960_000 + 60 * i},{100 + i % 7}\n" for i in range(500))
    body = gzip.compress(f"timestamp,close\n{rows}".encode())
    assert len(body) < 3_000
    with dataset_services(settings) as (services, ctx):
        dataset_id = services.datasets.create(DANA, "big", "BTC/USDT").dataset.dataset_id
        upload_id, job_id = upload(services, DANA, dataset_id, body, tmp_path)
        with pytest.raises(JobFailed, match="over the pro tier's maxDatasetBytes of 3,000"):
            run_dataset_ingest(ctx, *job(ctx, job_id))
        state = services.dataset_uploads.upload_state(DANA, dataset_id, upload_id)
        assert state.status is SessionStatus.FAILED
        view = services.datasets.get(DANA, dataset_id)
        assert (view.dataset.status, view.dataset.current_version_id) == (
            DatasetStatus.FAILED,
            None,
        )
        with services.database.unit_of_work() as uow:
            usage = UsageRepository(uow.session).usage_of(DANA.user_id)
        assert (usage.datasets_used, usage.dataset_bytes_used) == (1, 0)


def _recent_hours(hours: int) -> tuple[str, str]:
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
    start = end - timedelta(hours=hours)
    return f"{start:%Y-%m-%dT%H:%M:%SZ}", f"{end:%Y-%m-%dT%H:%M:%SZ}"


def _import(services: Services, name: str, cadence: str | None) -> tuple[str, str, str]:
    frm, to = _recent_hours(2)
    request = ImportRequest(name, "ETH/USDT", frm, to, "cex", cadence, "sim", DataKind.TICKERS)
    started = services.dataset_imports.create(DANA, request)
    assert started.cadence == cadence
    return started.dataset_id, started.import_id, started.job_id


def test_an_import_from_sim_builds_minute_candles_from_its_ticks(
    parts: tuple[Services, WorkerContext],
) -> None:
    services, ctx = parts
    dataset_id, import_id, job_id = _import(services, "sim-1m", "1m")
    state = services.dataset_imports.state(DANA, dataset_id, import_id)
    assert (state.status, state.session.job_id) == (SessionStatus.FETCHING, job_id)

    outcome = run_dataset_import(ctx, *job(ctx, job_id))

    state = services.dataset_imports.state(DANA, dataset_id, import_id)
    assert state.status is SessionStatus.READY
    version = state.version
    assert version is not None
    assert version.version_id == outcome.version_id
    assert version.cadence == "1m"
    assert 0 < version.rows <= 120
    assert version.rows == outcome.rows
    assert {"open", "high", "low", "close"} <= set(version.columns)
    view = services.datasets.get(DANA, dataset_id)
    assert (view.dataset.status, view.dataset.kind) == (DatasetStatus.READY, DataKind.KLINES)
    assert view.dataset.instrument == "ETH/USDT"


def test_an_import_of_native_ticks_keeps_every_tick_as_a_price_row(
    parts: tuple[Services, WorkerContext],
) -> None:
    services, ctx = parts
    dataset_id, import_id, job_id = _import(services, "sim-ticks", None)
    run_dataset_import(ctx, *job(ctx, job_id))
    state = services.dataset_imports.state(DANA, dataset_id, import_id)
    assert state.status is SessionStatus.READY
    assert state.version is not None
    assert state.version.rows > 120  # ticks, not minutes
    assert {"bid", "ask", "close"} <= set(state.version.columns)
    view = services.datasets.get(DANA, dataset_id)
    assert view.dataset.kind is DataKind.TICKERS


def test_an_import_that_finds_no_data_fails_with_the_exchange_and_range(
    parts: tuple[Services, WorkerContext],
) -> None:
    """The service admits only exchanges it knows; the handler's own refusal is reached by a
    job whose exchange holds nothing for the range (here: a name no store has)."""
    services, ctx = parts
    dataset_id, import_id, job_id = _import(services, "sim-empty", "1m")
    record, progress = job(ctx, job_id)
    spec = record.spec_as(DatasetImportSpec)
    emptied = replace(record, spec=replace(spec, exchange="nowhere"))
    with pytest.raises(JobFailed, match="nowhere has no ticker data for ETH/USDT between"):
        run_dataset_import(ctx, emptied, progress)
    state = services.dataset_imports.state(DANA, dataset_id, import_id)
    assert state.status is SessionStatus.FAILED
    assert state.error is not None
    assert "nowhere has no ticker data" in state.error
    view = services.datasets.get(DANA, dataset_id)
    assert (view.dataset.status, view.dataset.error) == (DatasetStatus.FAILED, state.error)


def test_an_upload_whose_ingest_job_died_reads_failed_with_the_jobs_reason(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    """A worker lost mid-ingest never moves the session; its job ends Failed (recovery), and
    the state a user polls says so instead of ``ingesting`` forever."""
    services, ctx = parts
    dataset_id = services.datasets.create(DANA, "lost", "BTC/USDT").dataset.dataset_id
    upload_id, job_id = upload(services, DANA, dataset_id, candle_csv(), tmp_path)
    assert services.dataset_uploads.upload_state(DANA, dataset_id, upload_id).status is (
        SessionStatus.INGESTING
    )
    with ctx.database.unit_of_work() as uow:
        ended = JobRepository(uow.session).finish(
            job_id, JobStatus.FAILED, datetime.now(UTC), "the worker was lost", None
        )
    assert ended

    state = services.dataset_uploads.upload_state(DANA, dataset_id, upload_id)
    assert (state.status, state.error) == (SessionStatus.FAILED, "the worker was lost")
    assert state.session.status is SessionStatus.INGESTING  # read only: nothing was written
    assert services.datasets.get(DANA, dataset_id).dataset.status is DatasetStatus.PENDING
