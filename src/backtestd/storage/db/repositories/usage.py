"""SQL for the storage accounting behind ``/v1/account/usage``."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import func, insert, select, text, update
from sqlalchemy.orm import Session

from backtestd.domain.accounts import Usage
from backtestd.storage.db.tables import storage_items


class UsageRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def lock_user(self, user_id: str) -> None:
        """Serialise this transaction with the user's other storage changes until it ends.

        A quota check (count, then sum, then compare) must not interleave with another one of
        the same user, or both could pass and together exceed the cap. PostgreSQL takes a
        transaction-scoped advisory lock; SQLite already serialises writers (the ``record``
        that precedes the sum takes the database write lock).
        """
        if self._session.get_bind().dialect.name != "postgresql":
            return
        digest = hashlib.blake2b(f"storage:{user_id}".encode(), digest_size=8).digest()
        key = int.from_bytes(digest, "big", signed=True)
        self._session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})

    def record(self, item_id: str, user_id: str, kind: str, size: int, when: datetime) -> None:
        """Count a stored object (idempotent per ``item_id``: the size is replaced)."""
        existing = self._session.execute(
            select(storage_items.c.item_id).where(storage_items.c.item_id == item_id)
        ).first()
        if existing:
            self._session.execute(
                update(storage_items)
                .where(storage_items.c.item_id == item_id)
                .values(bytes=size, deleted_at=None)
            )
        else:
            self._session.execute(
                insert(storage_items).values(
                    item_id=item_id, user_id=user_id, kind=kind, bytes=size, created_at=when
                )
            )

    def release(self, item_id: str, when: datetime) -> None:
        self._session.execute(
            update(storage_items)
            .where(storage_items.c.item_id == item_id, storage_items.c.deleted_at.is_(None))
            .values(deleted_at=when)
        )

    def usage_of(self, user_id: str) -> Usage:
        rows = self._session.execute(
            select(
                storage_items.c.kind,
                func.count(),
                func.coalesce(func.sum(storage_items.c.bytes), 0),
            )
            .where(storage_items.c.user_id == user_id, storage_items.c.deleted_at.is_(None))
            .group_by(storage_items.c.kind)
        ).all()
        totals = {kind: (int(count), int(size)) for kind, count, size in rows}
        datasets = totals.get("dataset", (0, 0))
        signals = totals.get("signals", (0, 0))
        strategies = totals.get("strategy", (0, 0))
        return Usage(
            datasets_used=datasets[0],
            dataset_bytes_used=datasets[1],
            signals_used=signals[0],
            signal_bytes_used=signals[1],
            strategies_used=strategies[0],
            strategy_bytes_used=strategies[1],
        )
