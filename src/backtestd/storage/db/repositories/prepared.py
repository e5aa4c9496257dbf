"""SQL for the ledger of prepared data (the least-recently-used cache of prepared columns)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from backtestd.storage.db.insert import upsert
from backtestd.storage.db.tables import prepared_data


class PreparedDataRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def record(self, job_id: str, user_id: str, size: int, when: datetime) -> None:
        """A prepare's columns are stored (again): their bytes, used now."""
        upsert(
            self._session,
            prepared_data,
            {"job_id": job_id, "user_id": user_id, "bytes": size, "used_at": when},
        )

    def touch(self, job_id: str, when: datetime) -> None:
        self._session.execute(
            update(prepared_data).where(prepared_data.c.job_id == job_id).values(used_at=when)
        )

    def total_bytes(self) -> int:
        value = self._session.execute(
            select(func.coalesce(func.sum(prepared_data.c.bytes), 0))
        ).scalar_one()
        return int(value)

    def bytes_by_user(self) -> dict[str, int]:
        """What each user's prepares hold (users holding nothing are left out)."""
        rows = self._session.execute(
            select(prepared_data.c.user_id, func.sum(prepared_data.c.bytes)).group_by(
                prepared_data.c.user_id
            )
        )
        return {str(user): int(size) for user, size in rows if size}

    def least_recently_used(
        self, user_id: str, used_before: datetime, limit: int
    ) -> list[tuple[str, int]]:
        """``(job id, bytes)`` of the user's prepares unused since ``used_before``, oldest use
        first."""
        rows = self._session.execute(
            select(prepared_data.c.job_id, prepared_data.c.bytes)
            .where(prepared_data.c.user_id == user_id, prepared_data.c.used_at < used_before)
            .order_by(prepared_data.c.used_at, prepared_data.c.job_id)
            .limit(limit)
        )
        return [(str(job_id), int(size)) for job_id, size in rows]

    def forget_if_unused_since(self, job_id: str, used_before: datetime) -> bool:
        """Drop the row unless the prepare was used meanwhile; True when dropped (the caller
        then deletes the columns)."""
        result = self._session.execute(
            delete(prepared_data).where(
                prepared_data.c.job_id == job_id, prepared_data.c.used_at < used_before
            )
        )
        return bool(getattr(result, "rowcount", 0))

    def forget(self, job_id: str) -> None:
        self._session.execute(delete(prepared_data).where(prepared_data.c.job_id == job_id))
