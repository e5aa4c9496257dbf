"""SQL for sweeps: their rows, keyed by (sweep, runIx) so a retried shard never duplicates one, and
the state changes of a sweep's own job row (``SweepJobRepository``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy import Integer, Text, cast, func, null, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from backtestd.domain.jobs import JobKind, JobStatus
from backtestd.domain.serial import from_stored, to_stored
from backtestd.domain.sweeps import (
    CANCELLED_DETAIL,
    FoldOutcome,
    Params,
    SweepClosing,
    SweepMetrics,
    SweepRow,
    TrialCurve,
    sweep_closing,
)
from backtestd.storage.db.insert import insert_new, insert_new_many
from backtestd.storage.db.json_text import EncodedJSON, decode_numbers, encode_numbers
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.tables import sweep_rows
from backtestd.storage.db.tables.base import UtcDateTime

# A stored curve as the text it was written as: decoded by orjson (json_text.decode_numbers)
# instead of the engine's json.loads. The column is JSON (not JSONB) on PostgreSQL, which keeps
# the text as written.
_CURVE_TEXT = cast(sweep_rows.c.curve, Text).label("curve")


def _row(row: RowMapping, with_returns: bool) -> SweepRow:
    """A stored row read back typed (``domain.serial``); ``curve`` is read on its own."""
    fold = row.get("fold")
    return SweepRow(
        sweep_id=row["sweep_id"],
        run_ix=row["run_ix"],
        params=from_stored(Params, row["params"]),
        metrics=from_stored(SweepMetrics, row["metrics"]),
        aborted=bool(row["aborted"]),
        runtime_ms=row["runtime_ms"],
        daily_returns=tuple(row["daily_returns"]) if with_returns else (),
        error=row["error"],
        fold=None if fold is None else from_stored(FoldOutcome, fold),
    )


def _values(row: SweepRow, now: datetime) -> dict[str, object]:
    """A row's columns but its curve."""
    return {
        "sweep_id": row.sweep_id,
        "run_ix": row.run_ix,
        "params": to_stored(row.params, Params),
        "metrics": to_stored(row.metrics),
        "aborted": row.aborted,
        "error": row.error,
        "runtime_ms": row.runtime_ms,
        "daily_returns": list(row.daily_returns),
        "fold": None if row.fold is None else to_stored(row.fold),
        "created_at": now,
    }


def _encode_curve(curve: TrialCurve) -> EncodedJSON:
    """The curve column's text, encoded by orjson (``json_text``): its fields are its stored
    names (``vars``), and a curve is too large for the general serialisation's pace."""
    return encode_numbers(vars(curve))


def _decode_curve(text: str) -> TrialCurve:
    return from_stored(TrialCurve, decode_numbers(text))


class SweepRowRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, row: SweepRow, now: datetime) -> bool:
        """Store a row; False when that ``runIx`` is already stored (a retried shard)."""
        values = _values(row, now)
        # SQL NULL, not JSON null: "holds a curve" is then answered from the row header
        # (curve_ixs) instead of by reading every stored curve (migration 0007).
        values["curve"] = _encode_curve(row.curve) if row.curve is not None else null()
        return insert_new(self._session, sweep_rows, values)

    def add_many(self, rows: Sequence[SweepRow], now: datetime) -> int:
        """Store rows in two statements (with and without a curve); rows whose ``runIx`` is
        already stored are skipped (a retried shard). A row without a curve leaves the column
        out, so it holds SQL NULL as :meth:`add` writes it. Returns the bytes of the curves
        stored (the text the column holds), for the ledger of stored curves."""
        encoded = [(r, _encode_curve(r.curve)) for r in rows if r.curve is not None]
        stored: set[tuple[str, int]] = set()  # rows already there, whose curve is not stored
        for sweep_id in {r.sweep_id for r, _ in encoded}:
            result = self._session.execute(
                select(sweep_rows.c.run_ix).where(
                    sweep_rows.c.sweep_id == sweep_id,
                    sweep_rows.c.run_ix.in_(
                        [r.run_ix for r, _ in encoded if r.sweep_id == sweep_id]
                    ),
                )
            )
            stored.update((sweep_id, int(ix)) for ix in result.scalars())
        size = sum(len(text.text) for r, text in encoded if (r.sweep_id, r.run_ix) not in stored)
        with_curve = [{**_values(r, now), "curve": text} for r, text in encoded]
        without = [_values(r, now) for r in rows if r.curve is None]
        insert_new_many(self._session, sweep_rows, with_curve)
        insert_new_many(self._session, sweep_rows, without)
        return size

    def rows(
        self,
        sweep_id: str,
        with_returns: bool = False,
        with_folds: bool = True,
        run_ixs: Iterable[int] | None = None,
    ) -> list[SweepRow]:
        """Every row of a sweep by ``runIx``, without its curve (``curve`` is None: a curve is
        thousands of points, and decoding the retained ones made up most of a read's CPU; see
        :meth:`curve_ixs` and :meth:`curves`). ``with_folds=False`` leaves ``fold`` out too:
        SQLite stores it after the curve, and reaching it walks every page of a stored curve.
        ``run_ixs`` reads only those rows."""
        wanted = {"sweep_id", "run_ix", "params", "metrics", "aborted", "error", "runtime_ms"}
        wanted |= {"daily_returns"} if with_returns else set()
        wanted |= {"fold"} if with_folds else set()
        columns = [c for c in sweep_rows.c if c.name in wanted]
        query = select(*columns).where(sweep_rows.c.sweep_id == sweep_id)
        if run_ixs is not None:
            query = query.where(sweep_rows.c.run_ix.in_(list(run_ixs)))
        result = self._session.execute(query.order_by(sweep_rows.c.run_ix)).mappings()
        return [_row(r, with_returns) for r in result]

    def run_ixs(self, sweep_id: str) -> set[int]:
        """The ``runIx`` of every stored row (the primary key's index alone)."""
        result = self._session.execute(
            select(sweep_rows.c.run_ix).where(sweep_rows.c.sweep_id == sweep_id)
        )
        return {int(ix) for ix in result.scalars()}

    def curve_ixs(self, sweep_id: str) -> set[int]:
        """The ``runIx`` of every row that holds a curve, without reading the curves."""
        result = self._session.execute(
            select(sweep_rows.c.run_ix).where(
                sweep_rows.c.sweep_id == sweep_id, sweep_rows.c.curve.is_not(None)
            )
        )
        return {int(ix) for ix in result.scalars()}

    def curves(self, sweep_id: str, run_ixs: Iterable[int]) -> dict[int, TrialCurve]:
        """The stored curves of these rows (rows without one are left out)."""
        ixs = list(run_ixs)
        if not ixs:
            return {}
        result = self._session.execute(
            select(sweep_rows.c.run_ix, _CURVE_TEXT).where(
                sweep_rows.c.sweep_id == sweep_id,
                sweep_rows.c.run_ix.in_(ixs),
                sweep_rows.c.curve.is_not(None),
            )
        )
        return {int(ix): _decode_curve(text) for ix, text in result}

    def get(self, sweep_id: str, run_ix: int) -> SweepRow | None:
        columns = [c for c in sweep_rows.c if c.name != "curve"]
        row = (
            self._session.execute(
                select(*columns, _CURVE_TEXT).where(
                    sweep_rows.c.sweep_id == sweep_id, sweep_rows.c.run_ix == run_ix
                )
            )
            .mappings()
            .first()
        )
        if row is None:
            return None
        text = row["curve"]
        return replace(_row(row, True), curve=_decode_curve(text) if text is not None else None)

    def stored_ixs(self, sweep_id: str, start: int, stop: int) -> set[int]:
        result = self._session.execute(
            select(sweep_rows.c.run_ix).where(
                sweep_rows.c.sweep_id == sweep_id,
                sweep_rows.c.run_ix >= start,
                sweep_rows.c.run_ix < stop,
            )
        )
        return {int(ix) for ix in result.scalars()}

    def runtime_ms(self, sweep_id: str) -> int:
        """The worker time the sweep's stored trials took, summed over every shard."""
        value = self._session.execute(
            select(func.coalesce(func.sum(sweep_rows.c.runtime_ms), 0)).where(
                sweep_rows.c.sweep_id == sweep_id
            )
        ).scalar_one()
        return int(value)

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

    def curve_bytes(self, sweep_id: str, run_ixs: Iterable[int] | None = None) -> int:
        """The bytes of the sweep's stored curves (of ``run_ixs`` only, if given): the text the
        column holds, as :meth:`add_many` counts it."""
        query = select(
            func.coalesce(func.sum(func.length(cast(sweep_rows.c.curve, Text))), 0)
        ).where(sweep_rows.c.sweep_id == sweep_id, sweep_rows.c.curve.is_not(None))
        if run_ixs is not None:
            query = query.where(sweep_rows.c.run_ix.in_(list(run_ixs)))
        return int(self._session.execute(query).scalar_one())

    def drop_all_curves(self, sweep_id: str) -> int:
        """Reclaim every stored curve of a sweep (its strategy was deleted, or its curves were
        not read for long); rows stay. Returns the bytes freed."""
        size = self.curve_bytes(sweep_id)
        self._session.execute(
            update(sweep_rows)
            .where(sweep_rows.c.sweep_id == sweep_id, sweep_rows.c.curve.is_not(None))
            .values(curve=null())
        )
        return size

    def attach_curves(self, sweep_id: str, curves: Mapping[int, TrialCurve]) -> int:
        """Store the curves of rows stored before without one (a shard writes its best rows'
        curves after the rows); a row that holds a curve already keeps it (a retried shard).
        Returns the bytes stored, for the ledger of stored curves."""
        size = 0
        for run_ix, curve in curves.items():
            text = _encode_curve(curve)
            result = self._session.execute(
                update(sweep_rows)
                .where(
                    sweep_rows.c.sweep_id == sweep_id,
                    sweep_rows.c.run_ix == run_ix,
                    sweep_rows.c.curve.is_(None),
                )
                .values(curve=text)
            )
            if getattr(result, "rowcount", 0):
                size += len(text.text)
        return size

    def drop_curves(self, sweep_id: str, run_ixs: Iterable[int]) -> int:
        """Drop the curves of these rows (they left the shard's best); the bytes freed."""
        ixs = list(run_ixs)
        if not ixs:
            return 0
        size = self.curve_bytes(sweep_id, ixs)
        self._session.execute(
            update(sweep_rows)
            .where(sweep_rows.c.sweep_id == sweep_id, sweep_rows.c.run_ix.in_(ixs))
            .values(curve=null())
        )
        return size


class SweepJobRepository:
    """Every state change of a sweep's own job row (kind ``sweep``), through the job state
    machine's conditional updates (``JobRepository``) and the sweep's one closing rule
    (``domain.sweeps.sweep_closing``): started by its first shard, closed by its last, or
    cancelled on request. Nothing else writes a sweep's status."""

    def __init__(self, session: Session) -> None:
        self._jobs = JobRepository(session)

    def start(self, sweep_id: str, now: datetime) -> bool:
        """A shard started: so has the sweep (its start time is its first shard's)."""
        return self._jobs.mark_started(sweep_id, now)

    def close_if_done(self, sweep_id: str, now: datetime) -> SweepClosing | None:
        """Close the sweep if every shard has ended; the closing applied, or None (a shard is
        still active, or the sweep was already closed or cancelled)."""
        closing = sweep_closing(self._jobs.shards_of(sweep_id))
        if closing is None:
            return None
        self._jobs.mark_started(sweep_id, now)  # Completed is entered from Started only
        if self._jobs.finish(sweep_id, closing.status, now, closing.detail, None):
            return closing
        return None

    def cancel(self, sweep_id: str, now: datetime) -> None:
        """Flag every shard and the sweep (shards nobody started end at once) and close the
        sweep as cancelled; a shard in flight stops at its next check."""
        for shard in self._jobs.shards_of(sweep_id):
            self._jobs.request_cancel(shard.job_id, now)
        self._jobs.request_cancel(sweep_id, now)
        self._jobs.finish(sweep_id, JobStatus.ABORTED, now, CANCELLED_DETAIL, None)

    def close_orphans(self, now: datetime) -> int:
        """Close the sweeps whose shards all ended while no process was there to close them;
        how many were closed."""
        return sum(
            1
            for job in self._jobs.unfinished()
            if job.kind is JobKind.SWEEP and self.close_if_done(job.job_id, now) is not None
        )
