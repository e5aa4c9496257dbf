"""A unit of work that fails leaves nothing behind, nested (savepoint) inserts included."""

from __future__ import annotations

from pathlib import Path

import pytest

from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.jobs import JobRepository
from tests.support.job_specs import new_job


def test_a_rolled_back_unit_of_work_keeps_no_nested_insert(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'uow.sqlite3'}")
    migrate(database)

    def insert_then_refuse() -> None:
        with database.unit_of_work() as uow:
            assert JobRepository(uow.session).add(new_job("gone"))  # a SAVEPOINT insert
            raise RuntimeError("the service refused after the insert")

    with pytest.raises(RuntimeError, match="refused"):
        insert_then_refuse()
    with database.unit_of_work() as uow:
        assert JobRepository(uow.session).get("gone") is None
        assert JobRepository(uow.session).add(new_job("kept"))
    with database.unit_of_work() as uow:
        assert JobRepository(uow.session).get("kept") is not None
        assert not JobRepository(uow.session).add(new_job("kept"))  # duplicate: refused, no error
    database.dispose()
