"""Backtest routes: prepare, prepare state, execute, result, cancel; signed signal files."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from backtestd.api.deps import BacktestsExecute, BacktestsRead, BacktestsWrite, ServicesDep
from backtestd.api.schemas.backtests import (
    AcceptedJob,
    BacktestJobResult,
    BacktestJobState,
    CancelBacktestResponse,
    ExecuteBacktestBody,
    ExecuteResults,
    PrepareAccepted,
    PrepareJobState,
    PrepareRequest,
)
from backtestd.api.schemas.common import ResponseDocs, ResponseError
from backtestd.api.schemas.paths import DataTypePath
from backtestd.services import job_views
from backtestd.services.backtests import ExecuteInput, PrepareInput

router = APIRouter(tags=["backtesting"], responses={401: {"model": ResponseError}})
_ERRORS: ResponseDocs = {
    400: {"model": ResponseError},
    404: {"model": ResponseError},
    429: {"model": ResponseError},
}
BASE = "/backtest/{exchangeId}/{type}"


@router.post(
    f"{BASE}/prepare",
    status_code=202,
    response_model=PrepareAccepted,
    responses=_ERRORS,
    summary="Prepare market data over a date range",
)
def prepare(
    exchangeId: str,
    type: DataTypePath,
    body: PrepareRequest,
    principal: BacktestsWrite,
    services: ServicesDep,
) -> PrepareAccepted:
    job_id, cadence = services.backtests.prepare(
        principal,
        exchangeId,
        type,
        PrepareInput(
            body.from_,
            body.to,
            body.instrument,
            body.cadence,
            body.datasetId,
            body.datasetVersionId,
        ),
    )
    return PrepareAccepted(jobId=job_id, cadence=cadence)


@router.get(
    f"{BASE}/prepare/{{jobId}}",
    response_model=PrepareJobState,
    response_model_exclude_unset=True,
    responses=_ERRORS,
    summary="State and coverage of a prepare job",
)
def prepare_state(
    exchangeId: str, type: DataTypePath, jobId: str, principal: BacktestsRead, services: ServicesDep
) -> PrepareJobState:
    job = services.backtests.prepare_state(principal, exchangeId, type, jobId)
    return PrepareJobState.of(job)


@router.post(
    f"{BASE}/execute",
    status_code=202,
    response_model=AcceptedJob,
    responses=_ERRORS,
    summary="Run a registered strategy over a prepared dataset",
)
def execute(
    exchangeId: str,
    type: DataTypePath,
    body: ExecuteBacktestBody,
    principal: BacktestsExecute,
    services: ServicesDep,
) -> AcceptedJob:
    job_id = services.backtests.execute(
        principal,
        exchangeId,
        type,
        ExecuteInput(
            prepare_job_id=body.prepareJobId,
            strategy_id=body.strategyId,
            store_signals=body.storeSignals,
            equity_curve=body.equityCurve.to_domain() if body.equityCurve else None,
            base_config=body.baseConfig.to_domain() if body.baseConfig else None,
            params=body.checked_params(),
        ),
    )
    return AcceptedJob(jobId=job_id)


@router.get(
    f"{BASE}/execute/{{jobId}}",
    response_model=BacktestJobResult,
    response_model_exclude_unset=True,
    responses={202: {"description": "not ready yet; keep polling"}, **_ERRORS},
    summary="Result of a backtest (202 while it runs)",
)
def execute_result(
    exchangeId: str,
    type: DataTypePath,
    jobId: str,
    principal: BacktestsRead,
    services: ServicesDep,
) -> BacktestJobResult | JSONResponse:
    job = services.backtests.execute_state(principal, exchangeId, type, jobId)
    if not job.status.terminal:
        return JSONResponse({}, status_code=202)
    result = job_views.execute_result(job)
    key = result.signals.key if result.signals else None
    url = services.signed_urls.url_for(key) if key else None
    return BacktestJobResult(results=ExecuteResults.of(result, url), state=BacktestJobState.of(job))


@router.delete(
    f"{BASE}/prepare/{{jobId}}",
    response_model=CancelBacktestResponse,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Cancel a prepare (additive: its state later reads Aborted)",
)
def cancel_prepare(
    exchangeId: str,
    type: DataTypePath,
    jobId: str,
    principal: BacktestsWrite,
    services: ServicesDep,
) -> CancelBacktestResponse:
    finished = services.backtests.cancel_prepare(principal, exchangeId, type, jobId)
    return CancelBacktestResponse.of(jobId, finished)


@router.delete(
    f"{BASE}/execute/{{jobId}}",
    response_model=CancelBacktestResponse,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Cancel a backtest",
)
def cancel_execute(
    exchangeId: str,
    type: DataTypePath,
    jobId: str,
    principal: BacktestsWrite,
    services: ServicesDep,
) -> CancelBacktestResponse:
    finished = services.backtests.cancel_execute(principal, exchangeId, type, jobId)
    return CancelBacktestResponse.of(jobId, finished)


@router.get(
    f"{BASE}/execute/{{jobId}}/signals",
    response_class=Response,
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "The stored signals as CSV: ts (epoch ms), side (1 buy, -1 sell), "
            "price, info",
        },
        409: {"model": ResponseError, "description": "the execution has not finished"},
        **_ERRORS,
    },
    summary="Stored signals of a backtest as CSV (additive; the parquet is results.signalsUrl)",
)
def execute_signals_csv(
    exchangeId: str, type: DataTypePath, jobId: str, principal: BacktestsRead, services: ServicesDep
) -> Response:
    content = services.signals.csv(principal, exchangeId, type, jobId)
    return Response(
        content=content,
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="signals_{jobId}.csv"'},
    )
