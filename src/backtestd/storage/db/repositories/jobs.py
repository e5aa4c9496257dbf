"""SQL for jobs; every transition is a conditional update built from the domain's state machine
(``domain.jobs.TRANSITION_SOURCES``), so the database enforces the same rules under races."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import false, func, select, text, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from backtestd.domain.backtests import ExecuteSpec
from backtestd.domain.job_specs import (
    JobResult,
    JobSpec,
    result_from_stored,
    result_to_stored,
    spec_from_stored,
    spec_to_stored,
)
from backtestd.domain.jobs import (
    ABORTED_AT_ONCE,
    ACTIVE,
    TRANSITION_SOURCES,
    JobKind,
    JobRecord,
    JobStatus,
    survives_cancel,
)
from backtestd.domain.sweeps import SweepSpec
from backtestd.storage.db.conditions import status_in
from backtestd.storage.db.insert import insert_new
from backtestd.storage.db.tables import jobs

_ACTIVE = sorted(s.value for s in ACTIVE)
# The advisory lock key that serialises job admission across every replica (PostgreSQL).
_ADMISSION_LOCK = int.from_bytes(b"bt-queue", "big", signed=True)


def _entering(target: JobStatus) -> list[ColumnElement[bool]]:
    """The WHERE clause that lets a row enter ``target`` (domain state machine)."""
    condition: list[ColumnElement[bool]] = [status_in(jobs.c.status, TRANSITION_SOURCES[target])]
    if not survives_cancel(target):
        condition.append(jobs.c.cancel_requested.is_(False))
    return condition


def _record(row: RowMapping) -> JobRecord:
    return JobRecord(
        job_id=row["job_id"],
        user_id=row["user_id"],
        kind=JobKind(row["kind"]),
        exchange_id=row["exchange_id"],
        data_type=row["data_type"],
        spec=spec_from_stored(row["spec"]),
        status=JobStatus(row["status"]),
        created_at=row["created_at"],
        size=row["size"],
        completed=row["completed"],
        status_detail=row["status_detail"],
        start_time=row["start_time"],
        end_time=row["end_time"],
        result=result_from_stored(JobKind(row["kind"]), row["result"]),
        cancel_requested=bool(row["cancel_requested"]),
        attempts=row["attempts"],
    )


class JobRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def lock_admission(self) -> None:
        """Serialise this transaction with every other job admission until it ends.

        The queue cap and the per-user caps count active jobs, then insert one: two admissions
        interleaving would both pass and together exceed the cap (measured: 9 of a cap of 4
        admitted on PostgreSQL under a burst of 16). PostgreSQL takes a transaction-scoped
        advisory lock, held across replicas; SQLite takes its single write lock now, with a
        write that changes nothing, so the counts that follow see every committed admission.
        """
        if self._session.get_bind().dialect.name == "postgresql":
            self._session.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADMISSION_LOCK}
            )
        else:
            self._session.execute(update(jobs).where(false()).values(job_id=jobs.c.job_id))

    def add(self, record: JobRecord) -> bool:
        """Insert a new job; False when the id already exists (an identical submission)."""
        return insert_new(
            self._session,
            jobs,
            {
                "job_id": record.job_id,
                "user_id": record.user_id,
                "kind": record.kind.value,
                "exchange_id": record.exchange_id,
                "data_type": record.data_type,
                "spec": spec_to_stored(record.spec),
                "status": record.status.value,
                "status_detail": record.status_detail,
                "size": record.size,
                "completed": record.completed,
                "created_at": record.created_at,
                "start_time": None,
                "end_time": None,
                "result": {},
                "cancel_requested": False,
                "attempts": 0,
            },
        )

    def get(self, job_id: str) -> JobRecord | None:
        row = self._session.execute(select(jobs).where(jobs.c.job_id == job_id)).mappings().first()
        return _record(row) if row else None

    def count_active(self, kind: JobKind | tuple[JobKind, ...], user_id: str | None = None) -> int:
        kinds = [k.value for k in (kind if isinstance(kind, tuple) else (kind,))]
        query = select(func.count()).where(jobs.c.kind.in_(kinds), jobs.c.status.in_(_ACTIVE))
        if user_id is not None:
            query = query.where(jobs.c.user_id == user_id)
        return int(self._session.execute(query).scalar_one())

    def shards_of(self, sweep_id: str) -> list[JobRecord]:
        """The shard jobs of a sweep (ids ``<sweepId>.<n>``), in shard order."""
        rows = self._session.execute(
            select(jobs).where(
                jobs.c.kind == JobKind.SWEEP_SHARD.value,
                jobs.c.job_id.like(f"{sweep_id}.%"),
            )
        ).mappings()
        return sorted((_record(r) for r in rows), key=lambda j: int(j.job_id.rsplit(".", 1)[1]))

    def count_all_active(self) -> int:
        return int(
            self._session.execute(
                select(func.count()).where(jobs.c.status.in_(_ACTIVE))
            ).scalar_one()
        )

    def executes_storing_signals(self, user_id: str, strategy_id: str) -> list[str]:
        """Ids of the user's execute jobs of ``strategy_id`` that asked to store signals."""
        return [
            job_id
            for job_id, spec in self._specs_of(user_id, JobKind.EXECUTE)
            if isinstance(spec, ExecuteSpec)
            and spec.strategy_id == strategy_id
            and spec.store_signals
        ]

    def sweeps_of(self, user_id: str, strategy_id: str) -> list[str]:
        """Ids of the user's sweeps of ``strategy_id``."""
        return [
            job_id
            for job_id, spec in self._specs_of(user_id, JobKind.SWEEP)
            if isinstance(spec, SweepSpec) and spec.strategy_id == strategy_id
        ]

    def _specs_of(self, user_id: str, kind: JobKind) -> list[tuple[str, JobSpec]]:
        """``(job id, spec)`` of every job of ``kind`` the user has."""
        rows = self._session.execute(
            select(jobs.c.job_id, jobs.c.spec).where(
                jobs.c.user_id == user_id, jobs.c.kind == kind.value
            )
        ).all()
        return [(str(job_id), spec_from_stored(stored)) for job_id, stored in rows]

    def unfinished(self) -> list[JobRecord]:
        rows = self._session.execute(
            select(jobs).where(jobs.c.status.in_(_ACTIVE)).order_by(jobs.c.created_at)
        ).mappings()
        return [_record(r) for r in rows]

    def mark_started(self, job_id: str, now: datetime) -> bool:
        result = self._session.execute(
            update(jobs)
            .where(jobs.c.job_id == job_id, *_entering(JobStatus.STARTED))
            .values(
                status=JobStatus.STARTED.value,
                start_time=func.coalesce(jobs.c.start_time, now),
                attempts=jobs.c.attempts + 1,
            )
        )
        return bool(getattr(result, "rowcount", 0))

    def mark_yielded(self, job_id: str) -> bool:
        """Started -> New for a job that gives its worker back to be resumed later; the attempt
        it ends does not count (``attempts`` bounds jobs whose worker died, not yields). False
        when the job may not go back (a cancel was requested, or it is no longer running)."""
        result = self._session.execute(
            update(jobs)
            .where(jobs.c.job_id == job_id, *_entering(JobStatus.NEW))
            .values(status=JobStatus.NEW.value, attempts=jobs.c.attempts - 1)
        )
        return bool(getattr(result, "rowcount", 0))

    def others_waiting(
        self, kinds: tuple[JobKind, ...], user_id: str, queued_before: datetime
    ) -> bool:
        """Whether another user's job of these kinds has been waiting (New) since before
        ``queued_before`` (a job submitted a moment ago will likely find an idle worker)."""
        query = (
            select(jobs.c.job_id)
            .where(
                jobs.c.status == JobStatus.NEW.value,
                jobs.c.kind.in_([k.value for k in kinds]),
                jobs.c.user_id != user_id,
                jobs.c.created_at <= queued_before,
                jobs.c.cancel_requested.is_(False),
            )
            .limit(1)
        )
        return self._session.execute(query).first() is not None

    def set_progress(self, job_id: str, size: int, completed: int) -> None:
        self._session.execute(
            update(jobs)
            .where(jobs.c.job_id == job_id, jobs.c.status == JobStatus.STARTED.value)
            .values(size=size, completed=completed)
        )

    def finish(
        self,
        job_id: str,
        status: JobStatus,
        now: datetime,
        detail: str | None,
        result: JobResult | None,
        completed: int | None = None,
    ) -> bool:
        """Move to a terminal state if the rules allow it (cancel wins over completion)."""
        if not status.terminal:
            raise ValueError(f"finish needs a terminal state, not {status.value}")
        condition = [jobs.c.job_id == job_id, *_entering(status)]
        values: dict[str, Any] = {
            "status": status.value,
            "end_time": now,
            "status_detail": detail,
            "result": result_to_stored(result) or {},
        }
        if completed is not None:
            values["completed"] = completed
        elif status is JobStatus.COMPLETED:
            values["completed"] = jobs.c.size  # a completed job did all of its steps
        outcome = self._session.execute(update(jobs).where(*condition).values(**values))
        return bool(getattr(outcome, "rowcount", 0))

    def request_cancel(self, job_id: str, now: datetime) -> None:
        """Flag the job; a job nobody started yet is aborted at once."""
        self._session.execute(
            update(jobs)
            .where(jobs.c.job_id == job_id, jobs.c.status.in_(_ACTIVE))
            .values(cancel_requested=True)
        )
        self._session.execute(
            update(jobs)
            .where(
                jobs.c.job_id == job_id,
                status_in(jobs.c.status, ABORTED_AT_ONCE),
            )
            .values(
                status=JobStatus.ABORTED.value,
                end_time=now,
                status_detail="cancelled before it started",
            )
        )

    def cancel_requested(self, job_id: str) -> bool:
        value = self._session.execute(
            select(jobs.c.cancel_requested).where(jobs.c.job_id == job_id)
        ).scalar_one_or_none()
        return bool(value)

    # -- listing (the dashboard's job lists; services/job_listing.py) -------------------

    def page_of(
        self,
        user_id: str,
        kinds: tuple[JobKind, ...],
        limit: int,
        after: tuple[datetime, str] | None = None,
    ) -> list[JobRecord]:
        """The user's jobs of ``kinds``, newest first (``created_at``, then ``job_id``, both
        descending), starting after the keyset ``after`` (the last row of the previous page)."""
        query = select(jobs).where(
            jobs.c.user_id == user_id, jobs.c.kind.in_([k.value for k in kinds])
        )
        if after is not None:
            at, job_id = after
            query = query.where(
                (jobs.c.created_at < at) | ((jobs.c.created_at == at) & (jobs.c.job_id < job_id))
            )
        query = query.order_by(jobs.c.created_at.desc(), jobs.c.job_id.desc()).limit(limit)
        return [_record(r) for r in self._session.execute(query).mappings()]

    def get_many(self, job_ids: list[str]) -> dict[str, JobRecord]:
        """The jobs of ``job_ids`` that exist, by id (one query for a page's references)."""
        if not job_ids:
            return {}
        rows = self._session.execute(select(jobs).where(jobs.c.job_id.in_(job_ids))).mappings()
        return {r["job_id"]: _record(r) for r in rows}
