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
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from backtestd.errors import ServiceUnavailable
from backtestd.storage.db import json_text, text_params


def build_engine(url: str) -> Engine:
    """Create the engine; SQLite gets WAL, foreign keys and a generous busy timeout. Either kind
    stores text without NUL characters (:func:`text_params.without_nul`)."""
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            json_serializer=json_text.dumps,
        )
        text_params.install(engine)

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
    engine = create_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=20, json_serializer=json_text.dumps
    )
    text_params.install(engine)
    return engine


def _connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached (not a bad statement)."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, (OperationalError, InterfaceError)):
        text = str(exc.orig if isinstance(exc, DBAPIError) else exc).lower()
        return any(sign in text for sign in _CONNECTION_SIGNS)
    return False


_CONNECTION_SIGNS = (
    "connection",
    "server closed",
    "terminating",
    "could not connect",
    "timeout expired",
    "the database system is",
    "ssl syscall",
    "consuming input failed",
)


def _rollback_quietly(session: Session) -> None:
    try:
        session.rollback()
    except DBAPIError:  # the connection is gone: there is nothing left to roll back
        session.invalidate()


def _close_quietly(session: Session) -> None:
    try:
        session.close()
    except DBAPIError:
        session.invalidate()


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
        """One transaction. A lost or refused database connection becomes
        :class:`~backtestd.errors.ServiceUnavailable` (a 503 at the API): the transaction
        rolled back, so nothing is half-written, and the pool's pre-ping replaces the dead
        connections once the database is back."""
        session = self._sessions()
        uow = UnitOfWork(session)
        try:
            yield uow
            session.commit()
        except BaseException as exc:
            _rollback_quietly(session)
            if _connection_lost(exc):
                raise ServiceUnavailable(
                    "the database cannot be reached right now; nothing was changed, retry in a "
                    "few seconds"
                ) from exc
            raise
        finally:
            _close_quietly(session)
        for callback in uow._after_commit:
            callback()

    def dispose(self) -> None:
        self.engine.dispose()
