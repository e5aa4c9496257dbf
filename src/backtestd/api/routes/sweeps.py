"""Sweep routes: submit, result, cancel, sensitivity, and a trial's equity curve."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query

from backtestd.api.deps import BacktestsExecute, BacktestsRead, BacktestsWrite, ServicesDep
from backtestd.api.schemas.backtests import EquityCurveResult
from backtestd.api.schemas.common import ResponseError
from backtestd.api.schemas.paths import DataTypePath
from backtestd.api.schemas.sweeps import (
    CancelSweepResponse,
    ExecuteSweepAccepted,
    ExecuteSweepRequest,
    ExecuteSweepResult,
    SweepSensitivity,
)
from backtestd.domain.backtests import BaseConfig
from backtestd.domain.equity import OutMode
from backtestd.domain.sweeps import (
    MAX_RUN_IX,
    CurvePrefs,
    LeaderboardOrder,
    Objective,
    Ranking,
    Sampler,
)
from backtestd.errors import NotFound
from backtestd.services import sweep_views
from backtestd.services.sweeps import SweepRequest

router = APIRouter(tags=["backtesting"], responses={401: {"model": ResponseError}})
_ERRORS: dict[int | str, dict[str, object]] = {
    400: {"model": ResponseError},
    404: {"model": ResponseError},
    429: {"model": ResponseError},
}
SWEEP = "/backtest/{exchangeId}/{type}/executeSweep/{requestId}"
ObjectiveQuery = Annotated[Literal["sharpe", "sortino", "pnl", "maxdd"] | None, Query()]


def _request(body: ExecuteSweepRequest) -> SweepRequest:
    walk = body.walkForward
    return SweepRequest(
        strategy_id=body.strategyId,
        axes={name: axis.to_domain() for name, axis in body.sweep.params.items()},
        sampler=Sampler(body.sweep.sampler),
        seed=body.sweep.seed,
        samples=body.sweep.samples,
        objective=Objective(body.sweep.objective),
        base_config=body.baseConfig.to_domain() if body.baseConfig else BaseConfig(),
        store_signals=body.storeSignals,
        shards=body.shards,
        min_trade_floor=body.minTradeFloor,
        walk_forward=(walk.folds, walk.inSamplePct) if walk else None,
        curves=body.equityCurve.to_domain() if body.equityCurve else CurvePrefs(),
    )


@router.post(
    SWEEP,
    status_code=202,
    response_model=ExecuteSweepAccepted,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Run a parameter sweep over a prepared dataset",
)
def submit_sweep(
    exchangeId: str,
    type: DataTypePath,
    requestId: str,
    body: ExecuteSweepRequest,
    principal: BacktestsExecute,
    services: ServicesDep,
) -> ExecuteSweepAccepted:
    accepted = services.sweeps.submit(principal, exchangeId, type, requestId, _request(body))
    return ExecuteSweepAccepted.of(accepted)


@router.get(
    f"{SWEEP}/{{sweepId}}",
    response_model=ExecuteSweepResult,
    response_model_exclude_unset=True,
    responses=_ERRORS,
    summary="Leaderboard, progress and statistics of a sweep",
)
def sweep_result(
    exchangeId: str,
    type: DataTypePath,
    requestId: str,
    sweepId: str,
    principal: BacktestsRead,
    services: ServicesDep,
    objective: ObjectiveQuery = None,
    order: Annotated[Literal["ranked", "natural"], Query()] = "ranked",
    ranking: Annotated[Literal["plateau", "raw"], Query()] = "plateau",
) -> ExecuteSweepResult:
    view = services.sweeps.view(
        principal, exchangeId, type, requestId, sweepId, with_curve_metas=True
    )
    result = sweep_views.result(
        view,
        Objective(objective) if objective else view.spec.objective,
        LeaderboardOrder(order),
        Ranking(ranking),
        services.settings.sweep_leaderboard_limit,
        datetime.now(UTC),
    )
    return ExecuteSweepResult.of(result)


@router.delete(
    f"{SWEEP}/{{sweepId}}",
    response_model=CancelSweepResponse,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Cancel a sweep (between parameter vectors)",
)
def cancel_sweep(
    exchangeId: str,
    type: DataTypePath,
    requestId: str,
    sweepId: str,
    principal: BacktestsWrite,
    services: ServicesDep,
) -> CancelSweepResponse:
    finished = services.sweeps.cancel(principal, exchangeId, type, requestId, sweepId)
    return CancelSweepResponse.of(sweepId, finished)


@router.get(
    f"{SWEEP}/{{sweepId}}/sensitivity",
    response_model=SweepSensitivity,
    response_model_exclude_unset=True,
    responses=_ERRORS,
    summary="Per-axis marginals and pairwise heatmaps of the objective",
)
def sweep_sensitivity(
    exchangeId: str,
    type: DataTypePath,
    requestId: str,
    sweepId: str,
    principal: BacktestsRead,
    services: ServicesDep,
    objective: ObjectiveQuery = None,
) -> SweepSensitivity:
    view = services.sweeps.view(principal, exchangeId, type, requestId, sweepId)
    chosen = Objective(objective) if objective else view.spec.objective
    return SweepSensitivity.of(sweep_views.sensitivity_view(view, chosen))


@router.get(
    f"{SWEEP}/{{sweepId}}/runs/{{runIx}}/equityCurve",
    response_model=EquityCurveResult,
    response_model_exclude_unset=True,
    responses=_ERRORS,
    summary="Equity curve of one selected trial",
)
def trial_equity_curve(
    exchangeId: str,
    type: DataTypePath,
    requestId: str,
    sweepId: str,
    runIx: Annotated[int, Path(ge=0, le=MAX_RUN_IX)],
    principal: BacktestsRead,
    services: ServicesDep,
    outMode: Annotated[Literal["ARRAY", "SHORT"] | None, Query()] = None,
    resample: Annotated[int | None, Query(ge=2)] = None,
    differential: Annotated[bool | None, Query()] = None,
) -> EquityCurveResult:
    view = services.sweeps.view(principal, exchangeId, type, requestId, sweepId)
    row = services.sweeps.curve_row(view, runIx)
    curve = sweep_views.trial_curve(
        view, row, resample, differential, OutMode(outMode) if outMode else None
    )
    if curve is None:
        raise NotFound(sweep_views.missing_curve_message(view, runIx, row))
    return EquityCurveResult.of(curve)
