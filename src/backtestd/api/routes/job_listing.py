"""The owner's lists of backtest jobs and sweeps (additive routes; docs/api-decisions.md).

``/backtest/jobs`` and ``/backtest/sweeps`` have two path segments after ``/backtest``, the
job routes four or more (``/backtest/{exchangeId}/{type}/...``), so no address of either
family can be read as one of the other.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from backtestd.api.deps import BacktestsRead, ServicesDep
from backtestd.api.schemas.common import ResponseDocs, ResponseError
from backtestd.api.schemas.job_listing import JobList, JobListEntry, SweepList
from backtestd.domain.job_listing import LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX
from backtestd.services.job_listing import JobListing

router = APIRouter(tags=["backtesting"], responses={401: {"model": ResponseError}})
_ERRORS: ResponseDocs = {400: {"model": ResponseError}}

Limit = Annotated[
    int | None,
    Query(description=f"entries per page, 1 to {LIST_LIMIT_MAX} (default {LIST_LIMIT_DEFAULT})"),
]
Cursor = Annotated[
    str | None, Query(description="the previous page's `next`; omit for the first page")
]

Kind = Annotated[str | None, Query(description="`prepare` or `execute`; both if omitted")]


@router.get(
    "/backtest/jobs",
    response_model=JobList,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Your prepare and execute jobs, newest first (additive)",
)
def list_jobs(
    principal: BacktestsRead,
    services: ServicesDep,
    kind: Kind = None,
    limit: Limit = None,
    cursor: Cursor = None,
) -> JobList:
    return JobList.of(JobListing(services.database).jobs(principal, kind, limit, cursor))


@router.get(
    "/backtest/jobs/{jobId}",
    response_model=JobListEntry,
    response_model_exclude_none=True,
    responses={404: {"model": ResponseError}},
    summary="One of your prepare or execute jobs as the list shows it (additive)",
)
def get_job(jobId: str, principal: BacktestsRead, services: ServicesDep) -> JobListEntry:
    return JobListEntry.of(JobListing(services.database).job(principal, jobId))


@router.get(
    "/backtest/sweeps",
    response_model=SweepList,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Your sweeps, newest first (additive)",
)
def list_sweeps(
    principal: BacktestsRead, services: ServicesDep, limit: Limit = None, cursor: Cursor = None
) -> SweepList:
    return SweepList.of(JobListing(services.database).sweeps(principal, limit, cursor))
