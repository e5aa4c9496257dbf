"""Bring the schema to the latest Alembic revision; called by ``serve`` and the CLI."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from backtestd.storage.db.engine import Database

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def migrate(database: Database, revision: str = "head") -> None:
    """Upgrade to ``revision`` (the latest by default) inside one connection; safe to call on
    every start. Tests name an earlier revision to hold rows as an earlier release wrote them."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
