"""The owner's lists of prepare/execute jobs and of sweeps, newest first, in bounded pages.

Pages chain by keyset (the last entry's creation time and id, as an opaque cursor), so a job
created while a client pages does not shift the pages it has not read yet. Every query is
scoped to the caller: another user's jobs are never listed, and ``job`` answers 404 for them
exactly as for an id that does not exist.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

from backtestd.domain.accounts import Principal
from backtestd.domain.backtest_results import PrepareOutcome
from backtestd.domain.backtests import ExecuteSpec, PrepareSpec
from backtestd.domain.job_listing import (
    LIST_LIMIT_DEFAULT,
    LIST_LIMIT_MAX,
    JobSummary,
    Page,
    PreparedWindow,
    SweepSummary,
)
from backtestd.domain.jobs import JobKind, JobRecord
from backtestd.domain.sweeps import SweepSpec, sweep_status
from backtestd.errors import InvalidInput, NotFound
from backtestd.storage.db.engine import Database, UnitOfWork
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository

LISTED_KINDS: dict[str, tuple[JobKind, ...]] = {
    "": (JobKind.PREPARE, JobKind.EXECUTE),
    "prepare": (JobKind.PREPARE,),
    "execute": (JobKind.EXECUTE,),
}


def check_limit(limit: int | None) -> int:
    """The page size in effect; refuses one outside 1 to ``LIST_LIMIT_MAX`` by name."""
    if limit is None:
        return LIST_LIMIT_DEFAULT
    if not 1 <= limit <= LIST_LIMIT_MAX:
        raise InvalidInput(
            f"'limit' {limit} must be between 1 and {LIST_LIMIT_MAX}; "
            "page further with the answer's 'next' cursor"
        )
    return limit


def encode_cursor(job: JobRecord) -> str:
    raw = f"{job.created_at.isoformat()}|{job.job_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    """The keyset a cursor stands for; a cursor this service did not write is a 400."""
    if not cursor:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at, job_id = raw.split("|", 1)
        when = datetime.fromisoformat(at)
        if when.tzinfo is None or not job_id:
            raise ValueError("incomplete")
    except (ValueError, UnicodeDecodeError, binascii.Error) as exc:
        raise InvalidInput(
            f"'cursor' {cursor!r} is not a cursor of this list; pass the 'next' value of the "
            "previous page unchanged, or omit it for the first page"
        ) from exc
    return when, job_id


class JobListing:
    def __init__(self, database: Database) -> None:
        self._database = database

    def jobs(
        self, principal: Principal, kind: str | None, limit: int | None, cursor: str | None
    ) -> Page[JobSummary]:
        """The caller's prepare and execute jobs (or one ``kind`` of them), newest first."""
        kinds = LISTED_KINDS.get(kind or "")
        if kinds is None:
            raise InvalidInput(f"'kind' {kind!r} must be 'prepare' or 'execute' (or omitted)")
        size = check_limit(limit)
        after = decode_cursor(cursor)
        with self._database.unit_of_work() as uow:
            repo = JobRepository(uow.session)
            records = repo.page_of(principal.user_id, kinds, size + 1, after)
            shown = records[:size]
            summaries = self._summaries(uow, shown)
        more = len(records) > size
        return Page(summaries, encode_cursor(shown[-1]) if more and shown else None)

    def job(self, principal: Principal, job_id: str) -> JobSummary:
        """One prepare or execute job of the caller, as the list shows it (404 otherwise)."""
        with self._database.unit_of_work() as uow:
            record = JobRepository(uow.session).get(job_id)
            if (
                record is None
                or record.user_id != principal.user_id
                or record.kind not in LISTED_KINDS[""]
            ):
                raise NotFound(
                    f"no prepare or execute job {job_id!r} of yours; list them with "
                    "GET /v1/backtest/jobs"
                )
            return self._summaries(uow, [record])[0]

    def sweeps(
        self, principal: Principal, limit: int | None, cursor: str | None
    ) -> Page[SweepSummary]:
        """The caller's sweeps, newest first, with their status."""
        size = check_limit(limit)
        after = decode_cursor(cursor)
        with self._database.unit_of_work() as uow:
            repo = JobRepository(uow.session)
            records = repo.page_of(principal.user_id, (JobKind.SWEEP,), size + 1, after)
            shown = records[:size]
            specs = [r.spec_as(SweepSpec) for r in shown]
            prepares = repo.get_many(sorted({s.prepare_job_id for s in specs}))
            names = _names(uow, {s.strategy_id for s in specs})
            items = []
            for record, spec in zip(shown, specs, strict=True):
                # The shards only decide between COMPLETED and PARTIAL, once the sweep closed.
                shards = repo.shards_of(record.job_id) if record.status.terminal else []
                items.append(
                    SweepSummary(
                        record,
                        spec,
                        sweep_status(record, shards),
                        names.get(spec.strategy_id),
                        _window(prepares.get(spec.prepare_job_id)),
                    )
                )
        more = len(records) > size
        return Page(items, encode_cursor(shown[-1]) if more and shown else None)

    @staticmethod
    def _summaries(uow: UnitOfWork, records: list[JobRecord]) -> list[JobSummary]:
        executes = [r.spec for r in records if isinstance(r.spec, ExecuteSpec)]
        prepares = JobRepository(uow.session).get_many(sorted({s.prepare_job_id for s in executes}))
        names = _names(uow, {s.strategy_id for s in executes})
        out = []
        for record in records:
            if isinstance(record.spec, ExecuteSpec):
                out.append(
                    JobSummary(
                        record,
                        _window(prepares.get(record.spec.prepare_job_id)),
                        names.get(record.spec.strategy_id),
                    )
                )
                continue
            outcome = record.result_as(PrepareOutcome)
            ratio = outcome.coverage_ratio if outcome else None
            out.append(JobSummary(record, _window(record), coverage_ratio=ratio))
        return out


def _window(prepare: JobRecord | None) -> PreparedWindow | None:
    if prepare is None or not isinstance(prepare.spec, PrepareSpec):
        return None
    return PreparedWindow.of(prepare.spec)


def _names(uow: UnitOfWork, strategy_ids: set[str]) -> dict[str, str]:
    repo = StrategyRepository(uow.session)
    names = {}
    for strategy_id in sorted(strategy_ids):
        record = repo.get(strategy_id)
        if record is not None:
            names[strategy_id] = record.name
    return names
