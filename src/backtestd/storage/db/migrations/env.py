"""Alembic environment: uses the connection handed over by ``backtestd.storage.db.migrate``."""

from __future__ import annotations

from alembic import context

from backtestd.storage.db.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
