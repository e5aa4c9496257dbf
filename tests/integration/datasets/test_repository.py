"""Dataset repository: owner isolation, soft delete, newest-first listing, the one open upload,
and status changes only along the domain's transition tables."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backtestd.domain.datasets import (
    DataFormat,
    Dataset,
    DatasetSession,
    DatasetStatus,
    DatasetVersion,
    IllegalTransition,
    SessionKind,
    SessionStatus,
    TimestampUnit,
)
from backtestd.domain.marketdata import DataKind
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
        kind=DataKind.TICKERS,
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
        repo.mark_deleted("ds_a", T0 + timedelta(hours=1))
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
        assert repo.move_session("up_1", SessionStatus.UPLOADING, T0, received_bytes=10)
        assert repo.move_session("up_1", SessionStatus.INGESTING, T0, job_id="j1")
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        assert repo.open_upload_of("ds_a") is None
        stored = repo.session_of("alice", "ds_a", "up_1")
        assert stored is not None
        assert stored.job_id == "j1"
        assert repo.session_of("bob", "ds_a", "up_1") is None


def _upload(session_id: str = "up_1", status: SessionStatus = SessionStatus.OPEN) -> DatasetSession:
    return DatasetSession(
        session_id=session_id,
        dataset_id="ds_a",
        user_id="alice",
        kind=SessionKind.UPLOAD,
        status=status,
        object_key=f"uploads/{session_id}",
        created_at=T0,
        updated_at=T0,
        upload_cap=1_000,
    )


def test_a_session_moves_only_along_its_table_and_an_ended_one_stays(database: Database) -> None:
    later = T0 + timedelta(minutes=1)
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        repo.add_session(_upload())
        assert not repo.move_session("up_1", SessionStatus.INGESTING, later, job_id="j1")
        assert repo.move_session("up_1", SessionStatus.UPLOADING, later, received_bytes=5)
        assert repo.move_session("up_1", SessionStatus.UPLOADING, later, received_bytes=7)
        assert repo.move_session("up_1", SessionStatus.INGESTING, later, job_id="j1")
        assert not repo.move_session("up_1", SessionStatus.UPLOADING, later, received_bytes=9)
        assert repo.move_session("up_1", SessionStatus.FAILED, later, error="row 2: bad")
        assert not repo.move_session("up_1", SessionStatus.READY, later, version_id="dsv_1")
        assert not repo.move_session("up_missing", SessionStatus.FAILED, later, error="x")
    with database.unit_of_work() as uow:
        stored = DatasetRepository(uow.session).session_by_id("up_1")
    assert stored is not None
    assert (stored.status, stored.received_bytes, stored.job_id) == (SessionStatus.FAILED, 7, "j1")
    assert (stored.error, stored.version_id, stored.updated_at) == ("row 2: bad", None, later)
    assert stored.upload_cap == 1_000


def test_a_new_session_or_dataset_must_start_in_its_first_state(database: Database) -> None:
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        with pytest.raises(IllegalTransition, match="starts open"):
            repo.add_session(_upload(status=SessionStatus.UPLOADING))
        with pytest.raises(IllegalTransition, match="starts pending"):
            repo.add(
                Dataset("ds_x", "alice", "x", "BTC/USDT", DataKind.TICKERS, DatasetStatus.READY, T0)
            )


def test_a_dataset_follows_ready_and_failed_and_never_returns_to_pending(
    database: Database,
) -> None:
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        repo.add(_dataset("ds_a", "alice", "one", 0))
        repo.move_dataset("ds_a", DatasetStatus.FAILED, error="row 3: not a number")
        repo.move_dataset(
            "ds_a",
            DatasetStatus.READY,
            kind=DataKind.KLINES,
            current_version_id="dsv_2",
            updated_at=T0,
        )
        with pytest.raises(IllegalTransition):
            repo.move_dataset("ds_a", DatasetStatus.PENDING)
        with pytest.raises(IllegalTransition):
            repo.move_dataset("ds_missing", DatasetStatus.FAILED, error="x")
    with database.unit_of_work() as uow:
        stored = DatasetRepository(uow.session).of("alice", "ds_a")
    assert stored is not None
    assert (stored.status, stored.kind, stored.error) == (
        DatasetStatus.READY,
        DataKind.KLINES,
        None,
    )
    assert stored.current_version_id == "dsv_2"


def test_datasets_stored_with_the_wire_type_read_back(database: Database) -> None:
    """Datasets stored with the wire's ``ticker`` (the session's old cap key is renamed by
    revision 0008, tests/integration/storage/test_migration_typed_job_rows.py)."""
    from sqlalchemy import update

    from backtestd.storage.db.tables import dataset_uploads, datasets

    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        repo.add(_dataset("ds_a", "alice", "one", 0))
        repo.add_session(_upload())
        uow.session.execute(update(datasets).values(type="ticker"))
        uow.session.execute(update(dataset_uploads).values(spec={"upload_cap": 42}))
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        dataset, session = repo.of("alice", "ds_a"), repo.session_by_id("up_1")
    assert dataset is not None
    assert dataset.kind is DataKind.TICKERS
    assert session is not None
    assert session.upload_cap == 42
