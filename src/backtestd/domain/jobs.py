"""Jobs: the persisted unit of asynchronous work (prepare, execute, sweeps) and its states."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


class JobStatus(enum.StrEnum):
    NEW = "New"
    STARTED = "Started"
    COMPLETED = "Completed"
    FAILED = "Failed"
    ABORTED = "Aborted"

    @property
    def terminal(self) -> bool:
        return self in (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.ABORTED)


class JobKind(enum.StrEnum):
    PREPARE = "prepare"
    EXECUTE = "execute"
    SWEEP = "sweep"  # the sweep itself: never run, finished by its last shard
    SWEEP_SHARD = "sweep_shard"  # a contiguous range of a sweep's trials (or one fold)
    DATASET_INGEST = "dataset_ingest"  # one finalized upload becomes a dataset version
    DATASET_IMPORT = "dataset_import"  # an exchange range becomes a dataset version


@dataclass(frozen=True)
class JobRecord:
    job_id: str
    user_id: str
    kind: JobKind
    exchange_id: str
    data_type: str
    spec: dict[str, Any]
    status: JobStatus
    created_at: datetime
    size: int = 0
    completed: int = 0
    status_detail: str | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None
    result: dict[str, Any] = field(default_factory=dict)
    cancel_requested: bool = False
    attempts: int = 0
