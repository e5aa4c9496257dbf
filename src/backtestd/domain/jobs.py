"""Jobs: the persisted unit of asynchronous work (prepare, execute, sweeps) and its states."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from backtestd.domain.job_specs import JobResult, JobSpec

S = TypeVar("S")


class JobStatus(enum.StrEnum):
    NEW = "New"
    STARTED = "Started"
    COMPLETED = "Completed"
    FAILED = "Failed"
    ABORTED = "Aborted"

    @property
    def terminal(self) -> bool:
        return self in (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.ABORTED)


ACTIVE: frozenset[JobStatus] = frozenset({JobStatus.NEW, JobStatus.STARTED})
"""Queued or running: what per-user caps count and what cancel can still stop."""

TRANSITION_SOURCES: dict[JobStatus, frozenset[JobStatus]] = {
    JobStatus.NEW: frozenset({JobStatus.STARTED}),  # a sweep shard gives its worker back
    JobStatus.STARTED: ACTIVE,  # a job resubmitted after a restart starts over
    JobStatus.COMPLETED: frozenset({JobStatus.STARTED}),
    JobStatus.FAILED: ACTIVE,
    JobStatus.ABORTED: ACTIVE,
}
"""The job state machine, ``New -> Started -> Completed | Failed | Aborted``: for each target,
the states it may be entered from. The one table both the domain check and the repository's
conditional SQL updates are built from, so concurrent workers and cancel requests cannot race
a job into two terminal states. Rules: terminal states are final (no terminal state is a
source); Started may be entered again; completion only from Started; a started sweep shard may
go back to New when it yields its worker to another user's waiting job (docs/limits.md)."""

ABORTED_AT_ONCE: frozenset[JobStatus] = frozenset({JobStatus.NEW})
"""A cancel request aborts a job in these states at once (nobody started it)."""


def survives_cancel(target: JobStatus) -> bool:
    """Cancel wins: once cancellation is requested, Aborted is the only target left."""
    return target is JobStatus.ABORTED


def can_transition(current: JobStatus, target: JobStatus, cancel_requested: bool) -> bool:
    """Whether ``current -> target`` is allowed."""
    if cancel_requested and not survives_cancel(target):
        return False
    return current in TRANSITION_SOURCES.get(target, frozenset())


class JobKind(enum.StrEnum):
    PREPARE = "prepare"
    EXECUTE = "execute"
    SWEEP = "sweep"  # the sweep itself: never run, finished by its last shard
    SWEEP_SHARD = "sweep_shard"  # a contiguous range of a sweep's trials (or one fold)
    DATASET_INGEST = "dataset_ingest"  # one finalized upload becomes a dataset version
    DATASET_IMPORT = "dataset_import"  # an exchange range becomes a dataset version


RUNNABLE_KINDS = tuple(kind for kind in JobKind if kind is not JobKind.SWEEP)
"""Every kind that takes a worker (a sweep's own row never runs: its shards do)."""


@dataclass(frozen=True)
class JobRecord:
    job_id: str
    user_id: str
    kind: JobKind
    exchange_id: str
    data_type: str
    spec: JobSpec
    status: JobStatus
    created_at: datetime
    size: int = 0
    completed: int = 0
    status_detail: str | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None
    result: JobResult | None = None
    cancel_requested: bool = False
    attempts: int = 0

    def spec_as(self, kind: type[S]) -> S:
        """The spec as the handler of this job's kind expects it (a mismatch is a bug)."""
        if not isinstance(self.spec, kind):
            raise TypeError(f"job {self.job_id} holds a {type(self.spec).__name__}, not a {kind}")
        return self.spec

    def result_as(self, kind: type[S]) -> S | None:
        """The stored result, if it is one of ``kind`` (``None`` while none is stored)."""
        return self.result if isinstance(self.result, kind) else None
