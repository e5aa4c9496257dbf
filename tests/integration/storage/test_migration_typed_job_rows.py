"""Rows written by the release before typed job specs still read after the upgrade (revision
0008), on SQLite and PostgreSQL: every kind of spec and result, an execute's result served
under exactly the wire names it had before, and an upload session's PUT cap."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from backtestd.api.schemas.backtests import ExecuteResults, PrepareJobState
from backtestd.domain.backtest_results import ExecuteResult, PrepareOutcome
from backtestd.domain.backtests import BaseConfig, DatasetVersionRef, ExecuteSpec, PrepareSpec
from backtestd.domain.datasets import DatasetImportSpec, DatasetIngestSpec, VersionOutcome
from backtestd.domain.equity import OutMode
from backtestd.domain.jobs import JobRecord
from backtestd.domain.marketdata import DataKind
from backtestd.domain.sweeps import ShardOutcome, SweepShardSpec, SweepSpec
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.datasets import DatasetRepository
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.tables import dataset_uploads, jobs
from tests.support.services import temporary_postgres_database

EARLIER: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "earlier_job_rows.json").read_text()
)
"""Specs and results as the earlier release's own code wrote them (its ``to_json``)."""


@pytest.fixture(params=["sqlite", "postgres"])
def earlier(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """An empty database of each kind, not yet migrated."""
    if request.param == "sqlite":
        db = Database(f"sqlite:///{tmp_path / 'earlier.sqlite3'}")
        yield db
        db.dispose()
        return
    with temporary_postgres_database() as url:
        db = Database(url)
        yield db
        db.dispose()


def _upgraded(database: Database) -> list[JobRecord]:
    migrate(database, "0007")
    now = datetime(2026, 1, 3, tzinfo=UTC)
    with database.engine.begin() as connection:
        for n, row in enumerate(EARLIER):
            connection.execute(
                insert(jobs).values(
                    job_id=f"j{n}",
                    user_id="u",
                    kind=row["kind"],
                    exchange_id="sim",
                    data_type="kline",
                    spec=row["spec"],
                    status="Completed",
                    size=0,
                    completed=0,
                    created_at=now,
                    result=row["result"],
                    cancel_requested=False,
                    attempts=1,
                )
            )
        for upload_id, spec in (("up_old", {"maxDatasetBytes": 1234}), ("imp_old", {})):
            connection.execute(
                insert(dataset_uploads).values(
                    upload_id=upload_id,
                    dataset_id="ds_1",
                    user_id="u",
                    kind="upload" if spec else "import",
                    status="open",
                    object_key="",
                    spec=spec,
                    created_at=now,
                    updated_at=now,
                )
            )
    migrate(database)
    with database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        found = [repo.get(f"j{n}") for n in range(len(EARLIER))]
    assert all(job is not None for job in found)
    return [job for job in found if job is not None]


def test_every_earlier_row_reads_back_typed(earlier: Database) -> None:
    rows = _upgraded(earlier)
    kinds = [type(job.spec) for job in rows]
    assert (
        kinds
        == [PrepareSpec] * 3
        + [ExecuteSpec] * 3
        + [SweepSpec] * 2
        + [SweepShardSpec] * 2
        + [DatasetIngestSpec]
        + [DatasetImportSpec] * 2
    )

    user_prepare = rows[1].spec_as(PrepareSpec)
    assert user_prepare.dataset == DatasetVersionRef("ds_1", "dsv_2")
    assert rows[0].spec_as(PrepareSpec).dataset is None
    outcome = rows[0].result_as(PrepareOutcome)
    assert outcome is not None
    assert (outcome.total_hours, outcome.hours_with_data) == (24, 23)
    assert outcome.hours_without_data is not None
    assert outcome.hours_without_data[0].rationale == "low_activity"

    execute = rows[3].spec_as(ExecuteSpec)
    assert execute.base_config == BaseConfig(250.0, 0.002, 0.002, "RECEIVED", 50.0)
    assert execute.equity_curve.out_mode is OutMode.SHORT
    assert dict(execute.params) == {"fast": 9, "flag": True}
    assert execute.storage_limit is not None
    assert execute.storage_limit.max_total_storage_bytes == 100
    assert rows[5].result is None  # a run that stored nothing

    walk = rows[6].spec_as(SweepSpec)
    assert walk.walk_forward is not None
    assert (walk.walk_forward.folds, walk.walk_forward.in_sample_pct) == (3, 70)
    assert walk.samples == 20
    grid = rows[7].spec_as(SweepSpec)
    assert (grid.walk_forward, grid.samples) == (None, None)
    assert grid.base_config.fee_leg == "QUOTE"
    assert grid.base_config.sell_fee_rate == 0.002
    assert rows[8].spec_as(SweepShardSpec).stop == 50
    assert rows[9].result_as(ShardOutcome) == ShardOutcome(fold=2)

    assert rows[10].spec_as(DatasetIngestSpec).limits.max_dataset_bytes == 10
    imported = rows[11].spec_as(DatasetImportSpec)
    assert (imported.data_kind, imported.cadence_ms) == (DataKind.KLINES, 60_000)
    assert rows[12].spec_as(DatasetImportSpec).data_kind is DataKind.TICKERS
    assert rows[12].result_as(VersionOutcome) == VersionOutcome("ds_3", "dsv_j2", 5)


def test_an_earlier_upload_session_keeps_its_put_cap(earlier: Database) -> None:
    _upgraded(earlier)
    with earlier.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        upload, imported = repo.session_by_id("up_old"), repo.session_by_id("imp_old")
    assert upload is not None
    assert imported is not None
    assert (upload.upload_cap, imported.upload_cap) == (1234, None)


def test_an_earlier_execute_result_serves_the_same_wire_as_before(earlier: Database) -> None:
    rows = _upgraded(earlier)
    for job, earlier in zip(rows[3:5], EARLIER[3:5], strict=True):
        result = job.result_as(ExecuteResult)
        assert result is not None
        served = ExecuteResults.of(result, None).model_dump(exclude_unset=True)
        before = {k: v for k, v in earlier["result"].items() if k != "signalsKey"}
        assert served == before
    prepare = PrepareJobState.of(rows[0]).model_dump(exclude_unset=True)
    assert {k: prepare[k] for k in EARLIER[0]["result"]} == EARLIER[0]["result"]
