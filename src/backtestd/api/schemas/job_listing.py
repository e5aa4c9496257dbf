"""Wire shapes of the owner's job and sweep lists (additive; docs/api-decisions.md)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field

from backtestd.api.schemas.backtests import BaseConfig, ParamValue
from backtestd.api.schemas.common import WireModel
from backtestd.api.schemas.sweeps import base_config_of
from backtestd.domain.job_listing import JobSummary, Page, PreparedWindow, SweepSummary
from backtestd.domain.timefmt import iso_z


class JobWindow(WireModel):
    """What the prepare reads (for an execute: the prepare it ran on)."""

    instrument: str
    from_: str = Field(serialization_alias="from")
    to: str
    cadence: str
    datasetId: str | None = None

    @classmethod
    def of(cls, window: PreparedWindow | None) -> Self | None:
        if window is None:
            return None
        return cls(
            instrument=window.instrument,
            from_=iso_z(window.start) or "",
            to=iso_z(window.end) or "",
            cadence=window.cadence,
            datasetId=window.dataset_id,
        )


class JobListEntry(WireModel):
    jobId: str
    kind: Literal["prepare", "execute"]
    exchangeId: str
    type: str
    status: Literal["New", "Started", "Completed", "Failed", "Aborted"]
    statusDetail: str | None = None
    size: int
    completed: int
    createdAt: str
    endTime: str | None = None
    window: JobWindow | None = None
    coverageRatio: float | None = None  # prepare, once finished
    prepareJobId: str | None = None  # execute
    strategyId: str | None = None
    strategyName: str | None = None
    params: dict[str, ParamValue] | None = None
    baseConfig: BaseConfig | None = None
    storeSignals: bool | None = None

    @classmethod
    def of(cls, summary: JobSummary) -> Self:
        job = summary.job
        spec = summary.execute
        base = summary.base_config
        return cls(
            jobId=job.job_id,
            kind="execute" if spec else "prepare",
            exchangeId=job.exchange_id,
            type=job.data_type,
            status=job.status.value,
            statusDetail=job.status_detail,
            size=job.size,
            completed=job.completed,
            createdAt=iso_z(job.created_at) or "",
            endTime=iso_z(job.end_time),
            window=JobWindow.of(summary.window),
            coverageRatio=summary.coverage_ratio,
            prepareJobId=spec.prepare_job_id if spec else None,
            strategyId=spec.strategy_id if spec else None,
            strategyName=summary.strategy_name,
            params=dict(summary.params) if spec else None,
            baseConfig=base_config_of(base) if base else None,
            storeSignals=spec.store_signals if spec else None,
        )


class JobList(WireModel):
    jobs: list[JobListEntry]
    next: str | None = None

    @classmethod
    def of(cls, page: Page[JobSummary]) -> Self:
        return cls(jobs=[JobListEntry.of(s) for s in page.items], next=page.next_cursor)


class SweepListEntry(WireModel):
    sweepId: str
    requestId: str
    exchangeId: str
    type: str
    status: Literal["RUNNING", "COMPLETED", "PARTIAL", "CANCELLED"]
    strategyId: str
    strategyName: str | None = None
    totalRuns: int
    sampler: str
    objective: str
    folds: int | None = None
    params: list[str]
    createdAt: str
    window: JobWindow | None = None

    @classmethod
    def of(cls, summary: SweepSummary) -> Self:
        job, spec = summary.job, summary.spec
        return cls(
            sweepId=job.job_id,
            requestId=spec.prepare_job_id,
            exchangeId=job.exchange_id,
            type=job.data_type,
            status=summary.status.value,
            strategyId=spec.strategy_id,
            strategyName=summary.strategy_name,
            totalRuns=job.size,
            sampler=spec.sampler.value,
            objective=spec.objective.value,
            folds=spec.walk_forward.folds if spec.walk_forward else None,
            params=[axis.name for axis in spec.axes],
            createdAt=iso_z(job.created_at) or "",
            window=JobWindow.of(summary.window),
        )


class SweepList(WireModel):
    sweeps: list[SweepListEntry]
    next: str | None = None

    @classmethod
    def of(cls, page: Page[SweepSummary]) -> Self:
        return cls(sweeps=[SweepListEntry.of(s) for s in page.items], next=page.next_cursor)
