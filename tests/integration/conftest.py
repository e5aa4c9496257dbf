"""A migrated database of each kind, for storage and service tests that must hold on both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from tests.support.services import temporary_postgres_database


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A migrated SQLite file, then a fresh PostgreSQL database (skipped without a server,
    unless ``BACKTESTD_REQUIRE_SERVICES=1``)."""
    if request.param == "sqlite":
        db = Database(f"sqlite:///{tmp_path / 'storage.sqlite3'}")
        migrate(db)
        yield db
        db.dispose()
        return
    with temporary_postgres_database() as url:
        db = Database(url)
        migrate(db)
        yield db
        db.dispose()
