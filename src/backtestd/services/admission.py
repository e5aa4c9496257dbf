"""Admission: the one path by which any work enters the job queue.

Every submission — prepare, execute, sweep (with its shards), dataset ingest and import —
comes here inside the caller's unit of work, so the job row commits together with whatever the
caller writes beside it (a sweep's shards, a dataset's session) and reaches the executor only
after that commit. Here, and nowhere else:

- the admission lock is taken before anything is counted, so two concurrent requests can
  never both pass a count and together exceed a cap (``JobRepository.lock_admission``);
- the queue cap (``BACKTESTD_MAX_QUEUED_JOBS``) and the per-user caps of :data:`USER_CAPS`
  are counted, and "queue full" is worded once;
- each runnable job gets its fair-share priority: a user's n-th active job, whatever its
  kind, queues behind every other user's (n-1)-th, so a burst from one user — a sweep's
  shards included — cannot starve the others.

An identical submission (the same content-addressed job id) admits nothing and returns the
existing job: idempotence comes before the caps, so repeating a request never fails on them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import USER_EXCHANGE
from backtestd.domain.job_specs import JobSpec
from backtestd.domain.jobs import RUNNABLE_KINDS, JobKind, JobRecord, JobStatus
from backtestd.errors import LimitExceeded
from backtestd.jobs.executors.base import JobExecutor
from backtestd.settings import Settings
from backtestd.storage.db.engine import UnitOfWork
from backtestd.storage.db.repositories.jobs import JobRepository


@dataclass(frozen=True)
class NewJob:
    """One job to admit: its content-addressed id, kind, the path it was asked on, its spec."""

    job_id: str
    kind: JobKind
    exchange_id: str
    data_type: str
    spec: JobSpec
    size: int = 0
    runs: bool = True
    """False for a job row that is never run itself (a sweep: its shards run)."""
    failed: str | None = None
    """A job accepted but already known to fail (an execute naming an undeclared param): it is
    stored ``Failed`` with this reason and never queued, so it neither takes a worker nor
    counts against a cap."""


@dataclass(frozen=True)
class Admitted:
    """The outcome: the job's id, and whether this call created it (False: it existed)."""

    job_id: str
    created: bool


class Admission:
    def __init__(
        self,
        settings: Settings,
        executor: Callable[[], JobExecutor],
        clock: Callable[[], datetime],
    ) -> None:
        self._settings = settings
        self._executor = executor
        self._clock = clock

    def admit(
        self,
        uow: UnitOfWork,
        principal: Principal,
        job: NewJob,
        children: Sequence[NewJob] = (),
        check: Callable[[UnitOfWork], None] | None = None,
    ) -> Admitted:
        """Admit ``job`` (and ``children``, its shards) in ``uow``, or raise ``LimitExceeded``.

        ``check`` is the caller's own condition for new work (an execute storing signals
        needs room in the storage pool); like the caps, it is asked only when the job is
        new, under the admission lock. The executor is asked for before anything is
        written, so a process without one refuses the request instead of queueing work
        nobody runs.
        """
        executor = self._executor()
        repo = JobRepository(uow.session)
        if repo.get(job.job_id) is not None:
            return Admitted(job.job_id, created=False)
        repo.lock_admission()
        now = self._clock()
        if job.failed is not None:
            repo.add(self._record(principal, job, now))
            repo.finish(job.job_id, JobStatus.FAILED, now, job.failed, None)
            return Admitted(job.job_id, created=True)
        self._check_caps(repo, principal, job)
        if check is not None:
            check(uow)
        queued: list[tuple[str, int]] = []
        rank: int | None = None
        for new in (job, *children):
            if not repo.add(self._record(principal, new, now)) or not new.runs:
                continue
            if rank is None:
                # Counted after the insert above, so this job itself is included: subtract it.
                rank = repo.count_active(RUNNABLE_KINDS, principal.user_id) - 1
            queued.append((new.job_id, -rank))
            rank += 1

        def submit() -> None:
            for job_id, priority in queued:
                executor.submit(job_id, priority=priority)

        uow.after_commit(submit)
        return Admitted(job.job_id, created=True)

    @staticmethod
    def _record(principal: Principal, new: NewJob, now: datetime) -> JobRecord:
        return JobRecord(
            job_id=new.job_id,
            user_id=principal.user_id,
            kind=new.kind,
            exchange_id=new.exchange_id,
            data_type=new.data_type,
            spec=new.spec,
            status=JobStatus.NEW,
            created_at=now,
            size=new.size,
        )

    def _check_caps(self, repo: JobRepository, principal: Principal, job: NewJob) -> None:
        """The queue cap always; then the caller's per-user cap for this kind of work."""
        cap = self._settings.max_queued_jobs
        if repo.count_all_active() >= cap:
            raise LimitExceeded(
                f"the job queue is full ({cap} jobs waiting or running); retry later",
                reason="QUEUE_FULL",
            )
        if job.kind in (JobKind.EXECUTE, JobKind.SWEEP):
            limit = self._settings.tiers[principal.tier].max_execute
            if repo.count_active((JobKind.EXECUTE, JobKind.SWEEP), principal.user_id) >= limit:
                raise LimitExceeded(
                    f"at most {limit} concurrent executions and sweeps are allowed on the "
                    f"{principal.tier} tier; wait for one to finish or cancel one",
                    reason="CONCURRENCY_LIMIT",
                )
        elif job.kind is JobKind.PREPARE and job.exchange_id != USER_EXCHANGE:
            # The description exempts prepares of the user's own datasets.
            limit = self._settings.max_active_prepares_per_user
            if repo.count_active(JobKind.PREPARE, principal.user_id) >= limit:
                raise LimitExceeded(
                    f"at most {limit} prepares may be queued or running per user; wait for "
                    "one to finish"
                )

    def requeue(self, unfinished: Sequence[JobRecord]) -> None:
        """Hand jobs left unfinished by a previous process to the executor again, oldest first,
        with the same fair-share order as on admission (each user's n-th job behind every
        other user's (n-1)-th)."""
        executor = self._executor()
        ranks: dict[str, int] = {}
        for job in unfinished:
            rank = ranks.get(job.user_id, 0)
            ranks[job.user_id] = rank + 1
            executor.submit(job.job_id, priority=-rank)
