"""Insert-if-absent and insert-or-replace, without savepoints.

Idempotent submissions (the same job or sweep row twice, a registration race) insert a row
that may already exist. ``INSERT ... ON CONFLICT DO NOTHING`` answers that in one statement on
SQLite and PostgreSQL alike, inside the caller's unit of work: no savepoint (pysqlite would
commit a SAVEPOINT on release, outside the unit of work) and no exception to recover from.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session


def insert_new(session: Session, table: Table, values: dict[str, Any]) -> bool:
    """Insert ``values``; False (and nothing written) when a unique key already exists."""
    dialect = session.get_bind().dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    statement = module.insert(table).values(**values).on_conflict_do_nothing()
    return bool(getattr(session.execute(statement), "rowcount", 0))


def insert_new_many(session: Session, table: Table, rows: list[dict[str, Any]]) -> None:
    """:func:`insert_new` of many rows in one executemany (one compiled statement instead of
    one per row); rows whose unique key exists are skipped. Every row must have the same keys.
    """
    if not rows:
        return
    keys = rows[0].keys()
    if any(row.keys() != keys for row in rows):
        raise ValueError("insert_new_many needs the same columns in every row")
    dialect = session.get_bind().dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    session.execute(module.insert(table).on_conflict_do_nothing(), rows)


def upsert(session: Session, table: Table, values: dict[str, Any]) -> None:
    """Insert ``values``, or overwrite the row holding the same primary key.

    One ``INSERT ... ON CONFLICT DO UPDATE`` instead of delete-then-insert: under PostgreSQL's
    read committed, two processes that each delete (finding nothing) and then insert the same
    key collide on the primary key, and the loser's whole job failed. That happened when two
    workers generated the same ``sim`` hour for two prepares at once.
    """
    dialect = session.get_bind().dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    keys = [column.name for column in table.primary_key.columns]
    statement = module.insert(table).values(**values)
    changed = {name: statement.excluded[name] for name in values if name not in keys}
    session.execute(statement.on_conflict_do_update(index_elements=keys, set_=changed))
