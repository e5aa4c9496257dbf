"""The job specs and job results as one vocabulary: a union keyed by the job kind.

Each job kind declares its spec once, frozen and strict, next to its feature (``PrepareSpec``
and ``ExecuteSpec`` in ``domain/backtests.py``, ``SweepSpec`` and ``SweepShardSpec`` in
``domain/sweeps.py``, ``DatasetIngestSpec`` and ``DatasetImportSpec`` in
``domain/datasets.py``); each carries its ``kind`` so that the stored JSON says which one it is.
The job row stores a spec through :func:`spec_to_stored` and reads it back, typed, through
:func:`spec_from_stored`: no handler reads a spec by key, and a new job kind adds one member
here. Results follow the same path, keyed by the job row's kind (:data:`RESULT_TYPES`).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from backtestd.domain.backtest_results import ExecuteResult, PrepareOutcome
from backtestd.domain.backtests import ExecuteSpec, PrepareSpec
from backtestd.domain.datasets import DatasetImportSpec, DatasetIngestSpec, VersionOutcome
from backtestd.domain.jobs import JobKind
from backtestd.domain.serial import from_stored, to_stored
from backtestd.domain.sweeps import ShardOutcome, SweepShardSpec, SweepSpec

JobSpec = Annotated[
    PrepareSpec | ExecuteSpec | SweepSpec | SweepShardSpec | DatasetIngestSpec | DatasetImportSpec,
    Field(discriminator="kind"),
]
"""Every job's spec, told apart by its ``kind``."""

JobResult = PrepareOutcome | ExecuteResult | ShardOutcome | VersionOutcome
"""What a job stored when it ended (``None`` while it runs, or when it stored nothing)."""

RESULT_TYPES: dict[JobKind, Any] = {
    JobKind.PREPARE: PrepareOutcome,
    JobKind.EXECUTE: ExecuteResult,
    JobKind.SWEEP: ShardOutcome,
    JobKind.SWEEP_SHARD: ShardOutcome,
    JobKind.DATASET_INGEST: VersionOutcome,
    JobKind.DATASET_IMPORT: VersionOutcome,
}


def spec_to_stored(spec: JobSpec) -> Any:
    return to_stored(spec, JobSpec)


def spec_from_stored(data: object) -> JobSpec:
    return from_stored(JobSpec, data)


def result_to_stored(result: JobResult | None) -> Any:
    return None if result is None else to_stored(result)


def result_from_stored(kind: JobKind, data: object) -> JobResult | None:
    """A stored result read back as its kind's type; ``None`` when nothing was stored."""
    if not data:
        return None
    return from_stored(RESULT_TYPES[kind], data)
