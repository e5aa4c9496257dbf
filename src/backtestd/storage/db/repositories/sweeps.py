"""SQL for sweep rows. Rows are keyed by (sweep, runIx), so a retried shard never duplicates one."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Integer, func, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from backtestd.domain.sweeps import SweepRow
from backtestd.storage.db.insert import insert_new
from backtestd.storage.db.tables import sweep_rows
from backtestd.storage.db.tables.base import UtcDateTime


def _row(row: RowMapping, with_returns: bool) -> SweepRow:
    return SweepRow(
        sweep_id=row["sweep_id"],
        run_ix=row["run_ix"],
        params=row["params"],
        metrics=row["metrics"],
        aborted=bool(row["aborted"]),
        runtime_ms=row["runtime_ms"],
        daily_returns=tuple(row["daily_returns"]) if with_returns else (),
        error=row["error"],
        curve=row["curve"],
        fold=row["fold"],
    )


class SweepRowRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, row: SweepRow, now: datetime) -> bool:
        """Store a row; False when that ``runIx`` is already stored (a retried shard)."""
        return insert_new(
            self._session,
            sweep_rows,
            {
                "sweep_id": row.sweep_id,
                "run_ix": row.run_ix,
                "params": row.params,
                "metrics": row.metrics,
                "aborted": row.aborted,
                "error": row.error,
                "runtime_ms": row.runtime_ms,
                "daily_returns": list(row.daily_returns),
                "curve": row.curve,
                "fold": row.fold,
                "created_at": now,
            },
        )

    def rows(self, sweep_id: str, with_returns: bool = False) -> list[SweepRow]:
        columns = [c for c in sweep_rows.c if with_returns or c.name != "daily_returns"]
        result = self._session.execute(
            select(*columns).where(sweep_rows.c.sweep_id == sweep_id).order_by(sweep_rows.c.run_ix)
        ).mappings()
        return [_row(r, with_returns) for r in result]

    def get(self, sweep_id: str, run_ix: int) -> SweepRow | None:
        row = (
            self._session.execute(
                select(sweep_rows).where(
                    sweep_rows.c.sweep_id == sweep_id, sweep_rows.c.run_ix == run_ix
                )
            )
            .mappings()
            .first()
        )
        return _row(row, True) if row else None

    def stored_ixs(self, sweep_id: str, start: int, stop: int) -> set[int]:
        result = self._session.execute(
            select(sweep_rows.c.run_ix).where(
                sweep_rows.c.sweep_id == sweep_id,
                sweep_rows.c.run_ix >= start,
                sweep_rows.c.run_ix < stop,
            )
        )
        return {int(ix) for ix in result.scalars()}

    def counts(self, sweep_id: str) -> tuple[int, int, datetime | None]:
        """Rows stored, rows aborted, and when the last row was written."""
        done, aborted, last = self._session.execute(
            select(
                func.count(),
                func.coalesce(func.sum(sweep_rows.c.aborted.cast(Integer)), 0),
                func.max(sweep_rows.c.created_at, type_=UtcDateTime()),
            ).where(sweep_rows.c.sweep_id == sweep_id)
        ).one()
        return int(done), int(aborted), last

    def drop_curves(self, sweep_id: str, run_ixs: Iterable[int]) -> None:
        ixs = list(run_ixs)
        if ixs:
            self._session.execute(
                update(sweep_rows)
                .where(sweep_rows.c.sweep_id == sweep_id, sweep_rows.c.run_ix.in_(ixs))
                .values(curve=None)
            )
