"""SQL for the ledger of stored sweep curves (the least-recently-read cache of trial curves)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from backtestd.domain.jobs import ACTIVE
from backtestd.storage.db.conditions import status_in
from backtestd.storage.db.insert import insert_new
from backtestd.storage.db.tables import jobs, sweep_curves


class SweepCurveRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def grow(self, sweep_id: str, user_id: str, delta: int, when: datetime) -> None:
        """A shard stored (``delta`` > 0) or dropped curves of its sweep: count them, and
        the sweep was used now."""
        insert_new(
            self._session,
            sweep_curves,
            {"sweep_id": sweep_id, "user_id": user_id, "bytes": 0, "read_at": when},
        )
        self._session.execute(
            update(sweep_curves)
            .where(sweep_curves.c.sweep_id == sweep_id)
            .values(bytes=sweep_curves.c.bytes + delta, read_at=when)
        )

    def touch(self, sweep_id: str, when: datetime) -> None:
        """The sweep's curves were read."""
        self._session.execute(
            update(sweep_curves).where(sweep_curves.c.sweep_id == sweep_id).values(read_at=when)
        )

    def bytes_by_user(self) -> dict[str, int]:
        """What each user's stored curves hold (users holding none are left out)."""
        rows = self._session.execute(
            select(sweep_curves.c.user_id, func.sum(sweep_curves.c.bytes)).group_by(
                sweep_curves.c.user_id
            )
        )
        return {str(user): int(size) for user, size in rows if size}

    def least_recently_read(self, user_id: str, limit: int) -> list[tuple[str, int, datetime]]:
        """``(sweep id, bytes, last read)`` of the user's finished sweeps holding curves, least
        recently read first. A sweep still queued or running is never listed: its shards are
        choosing which curves to keep."""
        rows = self._session.execute(
            select(sweep_curves.c.sweep_id, sweep_curves.c.bytes, sweep_curves.c.read_at)
            .join(jobs, jobs.c.job_id == sweep_curves.c.sweep_id)
            .where(
                sweep_curves.c.user_id == user_id,
                sweep_curves.c.bytes > 0,
                ~status_in(jobs.c.status, ACTIVE),
            )
            .order_by(sweep_curves.c.read_at, sweep_curves.c.sweep_id)
            .limit(limit)
        )
        return [(str(sweep_id), int(size), read_at) for sweep_id, size, read_at in rows]

    def mark_reclaimed(
        self, sweep_id: str, read_at: datetime, run_ixs: Iterable[int], when: datetime
    ) -> bool:
        """Record that the sweep's curves of ``run_ixs`` are reclaimed, unless it was read
        after ``read_at``; True when recorded (the caller then drops the curves in the same
        unit of work)."""
        earlier = self.reclaimed(sweep_id)
        result = self._session.execute(
            update(sweep_curves)
            .where(sweep_curves.c.sweep_id == sweep_id, sweep_curves.c.read_at <= read_at)
            .values(bytes=0, reclaimed=sorted(earlier | set(run_ixs)), reclaimed_at=when)
        )
        return bool(getattr(result, "rowcount", 0))

    def reclaimed(self, sweep_id: str) -> frozenset[int]:
        """The ``runIx`` whose curves were reclaimed (none for a sweep never reclaimed)."""
        value = self._session.execute(
            select(sweep_curves.c.reclaimed).where(sweep_curves.c.sweep_id == sweep_id)
        ).scalar_one_or_none()
        return frozenset(int(ix) for ix in value or ())

    def forget(self, sweep_id: str) -> None:
        """The sweep holds no curves any more for another reason (its strategy was deleted)."""
        self._session.execute(delete(sweep_curves).where(sweep_curves.c.sweep_id == sweep_id))
