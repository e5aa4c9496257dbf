"""The dataset migration builds exactly the tables the code declares (columns and indexes)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect

from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.tables import dataset_uploads, dataset_versions, datasets


def test_migration_matches_table_metadata(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        migrate(database)
        inspector = inspect(database.engine)
        for table in (datasets, dataset_versions, dataset_uploads):
            migrated = {column["name"] for column in inspector.get_columns(table.name)}
            assert migrated == set(table.columns.keys()), table.name
            indexes = {index["name"] for index in inspector.get_indexes(table.name)}
            assert indexes == {index.name for index in table.indexes}, table.name
    finally:
        database.dispose()
