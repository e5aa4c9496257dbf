"""Paper trading routes of a live run (``spec/live-execution.md`` §3.11, §3.12): its accounts
and its equity curves. Readers are those of the run's signals."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from backtestd.api.deps import LiveRead, ServicesDep
from backtestd.api.live_paper_wire import MEASURE_NAMES, curve_wire, paper_view_wire
from backtestd.api.routes.live import next_href
from backtestd.api.schemas import live as wire
from backtestd.api.schemas.common import ResponseDocs, ResponseError
from backtestd.services.live.paper_reads import curve_query

router = APIRouter(tags=["live"], responses={401: {"model": ResponseError}})
_ERRORS: ResponseDocs = {s: {"model": ResponseError} for s in (400, 403, 404)}


@router.get(
    "/live/{runId}/paper",
    response_model=wire.LivePaper,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="A live run's paper accounts as last recorded",
)
def get_live_run_paper(runId: str, principal: LiveRead, services: ServicesDep) -> wire.LivePaper:
    return paper_view_wire(services.live_paper.paper(principal.user_id, runId))


@router.get(
    "/live/{runId}/paper/equity",
    response_model=wire.LivePaperEquityCurve,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="A live run's paper equity curve: an account's equity or an instrument's PnL",
)
def get_live_run_paper_equity(
    runId: str,
    principal: LiveRead,
    services: ServicesDep,
    currency: str | None = None,
    instrument: str | None = None,
    measure: Annotated[str | None, Query(description="realisedPnl (default) or totalPnl")] = None,
    sinceMs: int | None = None,
    outMode: Annotated[str | None, Query(description="ARRAY (default) or SHORT")] = None,
    resample: int | None = None,
    differential: bool | None = None,
    limit: Annotated[int | None, Query(description="entries per page, 1 to 1000")] = None,
    cursor: Annotated[str | None, Query(description="the cursor of _links.next")] = None,
) -> wire.LivePaperEquityCurve:
    query = curve_query(
        currency,
        instrument,
        MEASURE_NAMES.get(measure, measure) if measure is not None else None,
        sinceMs,
        outMode,
        resample,
        differential,
        limit,
        cursor,
    )
    page = services.live_paper.equity(principal.user_id, runId, query)
    link = next_href(
        f"/live/{runId}/paper/equity",
        limit,
        page.next_cursor,
        currency=currency,
        instrument=instrument,
        measure=measure,
        sinceMs=sinceMs,
        outMode=outMode,
        differential=None if differential is None else str(differential).lower(),
    )
    return curve_wire(page, link)
