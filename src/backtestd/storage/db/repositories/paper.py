"""SQL for paper trading on live runs: each run's book (one JSON document) and its curves.

The executor writes both in the unit of work that records the update's signals; readers on
any API replica read them back. The book is JSON text written with ``json.dumps`` so its floats
read back bit for bit; curve values are IEEE doubles on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from backtestd.domain.paper import PaperBook, PaperPoint, PointKind
from backtestd.storage.db.insert import upsert
from backtestd.storage.db.tables import live_paper_books, live_paper_points


def _point(row: RowMapping) -> PaperPoint:
    return PaperPoint(
        seq=int(row["seq"]),
        account=row["account"],
        kind=PointKind(row["kind"]),
        ts_ms=int(row["ts_ms"]),
        instrument=row["instrument"],
        value=float(row["value"]),
        total=None if row["total"] is None else float(row["total"]),
    )


class PaperRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    # -- the book ------------------------------------------------------------------------------

    def book(self, run_id: str) -> PaperBook | None:
        row = (
            self._session.execute(
                select(live_paper_books).where(live_paper_books.c.run_id == run_id)
            )
            .mappings()
            .first()
        )
        if row is None:
            return None
        return PaperBook(run_id, json.loads(row["state"]), int(row["updated_at_ms"]))

    def save(self, run_id: str, state: Mapping[str, Any], now_ms: int) -> None:
        upsert(
            self._session,
            live_paper_books,
            {
                "run_id": run_id,
                "state": json.dumps(state, separators=(",", ":"), allow_nan=False),
                "updated_at_ms": now_ms,
            },
        )

    # -- the curves ----------------------------------------------------------------------------

    def add_points(self, run_id: str, points: Sequence[PaperPoint]) -> None:
        if not points:
            return
        self._session.execute(
            live_paper_points.insert(),
            [
                {
                    "run_id": run_id,
                    "seq": p.seq,
                    "account": p.account,
                    "kind": p.kind.value,
                    "instrument": p.instrument,
                    "ts_ms": p.ts_ms,
                    "value": p.value,
                    "total": p.total,
                }
                for p in points
            ],
        )

    def points(
        self,
        run_id: str,
        account: str,
        *,
        kinds: Sequence[PointKind],
        instrument: str | None = None,
        gap_kinds: Sequence[PointKind] = (),
        since_ms: int | None = None,
        after_seq: int | None = None,
        limit: int | None = None,
    ) -> list[PaperPoint]:
        """One curve's entries oldest first: ``kinds`` (of ``instrument`` when given, else of
        the account itself) and ``gap_kinds`` of any instrument of the account."""
        t = live_paper_points
        place = t.c.instrument.is_(None) if instrument is None else t.c.instrument == instrument
        own = and_(t.c.kind.in_([k.value for k in kinds]), place)
        which = or_(own, t.c.kind.in_([k.value for k in gap_kinds])) if gap_kinds else own
        query = select(t).where(t.c.run_id == run_id, t.c.account == account, which)
        if after_seq is not None:
            query = query.where(t.c.seq > after_seq)
        elif since_ms is not None:
            query = query.where(t.c.ts_ms >= since_ms)
        query = query.order_by(t.c.seq)
        if limit is not None:
            query = query.limit(limit)
        return [_point(row) for row in self._session.execute(query).mappings()]

    def count(self, run_id: str) -> int:
        return int(
            self._session.execute(
                select(func.count()).where(live_paper_points.c.run_id == run_id)
            ).scalar_one()
        )
