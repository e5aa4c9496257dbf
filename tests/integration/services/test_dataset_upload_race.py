"""A signed PUT racing a finalize of the same upload, on real SQLite and PostgreSQL.

The PUT's body is published while the session's row is locked and seen to be unfinalized, so
either the finalize comes first (the PUT answers 409 and the stored file is the one finalized)
or it waits for the PUT (and then finalizes, and its ingest reads, the bytes the PUT stored).
Before, the PUT replaced the file first and looked at the session afterwards: a finalize in
between got its file replaced under its ingest while the PUT answered 409 "nothing changed".

The one stand-in is the job queue (``HeldQueue``: the ingest is recorded, not run); the store
is the real local object store, paused inside the PUT's write by an event so the finalize can
be started at that moment.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import SessionStatus
from backtestd.errors import Conflict
from backtestd.services.container import Services, build_services
from backtestd.settings import Settings
from backtestd.storage.db.repositories.datasets import DatasetRepository
from backtestd.storage.objects.store import LocalObjectStore
from tests.support.held_queue import HeldQueue
from tests.support.services import temporary_postgres_database

ALICE = Principal("race-alice", "pro")


class PausedWrites(LocalObjectStore):
    """The local store, whose ``put_file`` waits for ``go`` once ``entered`` is set."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.entered = threading.Event()
        self.go = threading.Event()
        self.pause = False

    def put_file(self, key: str, source: Path) -> None:
        if self.pause:
            self.entered.set()
            assert self.go.wait(30), "the test never released the write"
        super().put_file(key, source)


@pytest.fixture(params=["sqlite", "postgres"])
def services(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Services]:
    def build(url: str) -> Services:
        built = build_services(Settings(data_dir=tmp_path / "data", database_url=url))
        built.backtests.executor = HeldQueue()
        return built

    if request.param == "sqlite":
        built = build("")
        yield built
        built.close()
        return
    with temporary_postgres_database() as url:
        built = build(url)
        yield built
        built.close()


def _paused_store(services: Services) -> PausedWrites:
    store = PausedWrites(services.settings.resolved_object_store_dir)
    services.dataset_uploads._objects = store  # the same root: the service's own store, paused
    return store


def _body(tmp_path: Path, name: str, rows: int) -> Path:
    path = tmp_path / name
    lines = [f"{1_700_000_000 + i},{100 + i}" for i in range(rows)]
    path.write_text("timestamp,close\n" + "\n".join(lines) + "\n")
    return path


def _stored(services: Services, upload_id: str) -> tuple[bytes, SessionStatus, int | None]:
    with services.database.unit_of_work() as uow:
        session = DatasetRepository(uow.session).session_by_id(upload_id)
    assert session is not None
    data = services.objects.get(session.object_key)
    assert data is not None
    return data, session.status, session.received_bytes


def test_a_finalize_during_a_put_waits_for_it_and_ingests_its_bytes(
    services: Services, tmp_path: Path
) -> None:
    created = services.datasets.create(ALICE, "raced", "BTC/USDT")
    dataset, upload_id = created.dataset, created.upload.upload_id
    first, second = _body(tmp_path, "first.csv", 10), _body(tmp_path, "second.csv", 20)
    services.dataset_uploads.receive_upload(upload_id, first)
    store = _paused_store(services)
    store.pause = True
    put: dict[str, object] = {}
    fin: dict[str, object] = {}

    def do_put() -> None:
        try:
            put["size"] = services.dataset_uploads.receive_upload(upload_id, second)
        except Conflict as exc:
            put["conflict"] = exc.message

    def do_finalize() -> None:
        fin["job"] = services.dataset_uploads.finalize(ALICE, dataset.dataset_id, upload_id)

    putter = threading.Thread(target=do_put)
    putter.start()
    assert store.entered.wait(30)  # the PUT is writing the file now
    finalizer = threading.Thread(target=do_finalize)
    finalizer.start()
    finalizer.join(1.0)
    assert finalizer.is_alive(), "the finalize did not wait for the PUT writing the file"
    store.go.set()
    putter.join(30)
    finalizer.join(30)

    assert put == {"size": second.stat().st_size}
    assert isinstance(fin.get("job"), str)
    data, status, received = _stored(services, upload_id)
    assert data == second.read_bytes()  # the bytes the ingest will read: the PUT's
    assert status is SessionStatus.INGESTING
    assert received == second.stat().st_size


def test_a_put_after_the_finalize_is_refused_and_changes_nothing(
    services: Services, tmp_path: Path
) -> None:
    created = services.datasets.create(ALICE, "late", "BTC/USDT")
    dataset, upload_id = created.dataset, created.upload.upload_id
    first, second = _body(tmp_path, "first.csv", 10), _body(tmp_path, "second.csv", 20)
    services.dataset_uploads.receive_upload(upload_id, first)
    services.dataset_uploads.finalize(ALICE, dataset.dataset_id, upload_id)

    with pytest.raises(Conflict):
        services.dataset_uploads.receive_upload(upload_id, second)

    data, status, received = _stored(services, upload_id)
    assert data == first.read_bytes()
    assert status is SessionStatus.INGESTING
    assert received == first.stat().st_size
