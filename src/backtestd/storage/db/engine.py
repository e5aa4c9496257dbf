"""Database engine construction and the unit of work.

Repositories flush, never commit: a service opens one ``UnitOfWork``, does its reads and
writes, and the context manager commits once (or rolls back on error). Callbacks registered
with ``after_commit`` (the job outbox) run only once the commit succeeded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


def build_engine(url: str) -> Engine:
    """Create the engine; SQLite gets WAL, foreign keys and a generous busy timeout."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            # No SAVEPOINTs anywhere (see storage/db/insert.py): pysqlite would commit one on
            # release, outside the unit of work.
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


class UnitOfWork:
    """One transaction; ``session`` is what repositories receive."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._after_commit: list[Callable[[], None]] = []

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the transaction has committed; dropped on rollback."""
        self._after_commit.append(callback)


class Database:
    """Owns the engine and hands out units of work."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = build_engine(url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def unit_of_work(self) -> Iterator[UnitOfWork]:
        session = self._sessions()
        uow = UnitOfWork(session)
        try:
            yield uow
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()
        for callback in uow._after_commit:
            callback()

    def dispose(self) -> None:
        self.engine.dispose()
