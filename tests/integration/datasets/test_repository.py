"""Dataset repository: owner isolation, soft delete, newest-first listing, the one open upload."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backtestd.domain.datasets import (
    DataFormat,
    Dataset,
    DatasetSession,
    DatasetStatus,
    DatasetType,
    DatasetVersion,
    SessionKind,
    SessionStatus,
    TimestampUnit,
)
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.datasets import DatasetRepository

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    db = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    migrate(db)
    yield db
    db.dispose()


def _dataset(dataset_id: str, user: str, name: str, minutes: int) -> Dataset:
    return Dataset(
        dataset_id=dataset_id,
        user_id=user,
        name=name,
        instrument="BTC/USDT",
        type=DatasetType.TICKER,
        status=DatasetStatus.PENDING,
        created_at=T0 + timedelta(minutes=minutes),
    )


def test_datasets_are_per_user_newest_first_and_soft_deleted(database: Database) -> None:
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        repo.add(_dataset("ds_a", "alice", "one", 0))
        repo.add(_dataset("ds_b", "alice", "two", 5))
        repo.add(_dataset("ds_c", "bob", "one", 1))
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        assert [d.dataset_id for d in repo.list_of("alice", False)] == ["ds_b", "ds_a"]
        assert repo.of("bob", "ds_a") is None
        assert repo.active_named("alice", "one") is not None
        first = repo.of("alice", "ds_a")
        assert first is not None
        repo.save(replace(first, deleted_at=T0 + timedelta(hours=1)))
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        assert repo.of("alice", "ds_a") is None
        assert repo.active_named("alice", "one") is None
        assert repo.count_active("alice") == 1
        listed = repo.list_of("alice", True)
        assert [d.deleted_at is not None for d in listed] == [False, True]


def test_versions_and_sessions_round_trip(database: Database) -> None:
    version = DatasetVersion(
        version_id="dsv_1",
        dataset_id="ds_a",
        user_id="alice",
        object_key="datasets/alice/ds_a/dsv_1.lastra",
        data_format=DataFormat.LASTRA,
        bytes=1234,
        rows=60,
        cadence="1m",
        timestamp_unit=TimestampUnit.MILLIS,
        gaps=2,
        largest_gap_steps=3,
        data_from=T0,
        data_to=T0 + timedelta(hours=1),
        columns=("timestamp", "close"),
        created_at=T0,
    )
    upload = DatasetSession(
        session_id="up_1",
        dataset_id="ds_a",
        user_id="alice",
        kind=SessionKind.UPLOAD,
        status=SessionStatus.OPEN,
        object_key="uploads/up_1",
        created_at=T0,
        updated_at=T0,
    )
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        repo.add_version(version)
        repo.add_session(upload)
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        assert repo.version_of("alice", "dsv_1") == version
        assert repo.version_of("bob", "dsv_1") is None
        assert repo.open_upload_of("ds_a") == upload
        repo.save_session(replace(upload, status=SessionStatus.INGESTING, job_id="j1"))
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        assert repo.open_upload_of("ds_a") is None
        stored = repo.session_of("alice", "ds_a", "up_1")
        assert stored is not None
        assert stored.job_id == "j1"
        assert repo.session_of("bob", "ds_a", "up_1") is None
