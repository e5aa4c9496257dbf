"""Strategy routes: register, list, read, delete, source, validate."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from backtestd.api.deps import ServicesDep, StrategiesRead, StrategiesWrite
from backtestd.api.schemas.common import HalLink, ResponseError
from backtestd.api.schemas.strategies import (
    CompileStrategyResponse,
    DeclaredProperty,
    DeleteStrategyResponse,
    Notice,
    StrategyCode,
    StrategyLinks,
    StrategyList,
    StrategyState,
    StrategySummary,
)
from backtestd.domain.strategies import StrategyRecord
from backtestd.strategy.requirements import required_features

router = APIRouter(tags=["strategy"], responses={401: {"model": ResponseError}})
_NOT_FOUND: dict[int | str, dict[str, object]] = {404: {"model": ResponseError}}


@router.post(
    "/strategy",
    response_model=CompileStrategyResponse,
    response_model_exclude_none=True,
    responses={
        400: {"model": ResponseError},
        413: {"model": ResponseError},
        429: {"model": ResponseError},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"text/plain": {"schema": {"type": "string", "maxLength": 32768}}},
        }
    },
    summary="Compile and register a strategy (Java or QTScript source as text/plain)",
)
async def compile_strategy(
    request: Request, principal: StrategiesWrite, services: ServicesDep
) -> CompileStrategyResponse:
    body = await request.body()
    record, warnings = await run_in_threadpool(services.strategies.register, principal, body)
    return CompileStrategyResponse(
        strategyId=record.strategy_id,
        declaredProperties=_declared(record),
        warnings=list(warnings) or None,
        requires=list(required_features(record.class_files)) or None,
    )


@router.get(
    "/strategies",
    response_model=StrategyList,
    response_model_exclude_none=True,
    summary="List the caller's strategies, most recently compiled first",
)
def list_strategies(
    principal: StrategiesRead, services: ServicesDep, includeDeleted: str | None = None
) -> StrategyList:
    records = services.strategies.list(principal, includeDeleted == "true")
    return StrategyList(
        strategies=[
            StrategySummary(
                strategyId=r.strategy_id,
                name=r.name,
                compiledAt=r.compiled_at,
                requiredSources=list(r.required_sources) or None,
                deletedAt=r.deleted_at,
            )
            for r in records
        ]
    )


@router.get(
    "/strategy/{strategyId}",
    response_model=StrategyState,
    response_model_exclude_none=True,
    responses=_NOT_FOUND,
    summary="Validation state of a strategy",
)
def get_strategy(
    strategyId: str, principal: StrategiesRead, services: ServicesDep
) -> StrategyState:
    return _state(services.strategies.get(principal, strategyId))


@router.delete(
    "/strategy/{strategyId}",
    response_model=DeleteStrategyResponse,
    responses=_NOT_FOUND,
    summary="Delete a strategy",
)
def delete_strategy(
    strategyId: str, principal: StrategiesWrite, services: ServicesDep
) -> DeleteStrategyResponse:
    services.strategies.delete(principal, strategyId)
    return DeleteStrategyResponse(strategyId=strategyId, deleted=True)


@router.get(
    "/strategy/{strategyId}/code",
    response_model=StrategyCode,
    responses=_NOT_FOUND,
    summary="The source last submitted for this strategy",
)
def get_strategy_code(
    strategyId: str, principal: StrategiesRead, services: ServicesDep
) -> StrategyCode:
    record = services.strategies.get(principal, strategyId)
    return StrategyCode(strategyId=record.strategy_id, code=record.source)


@router.post(
    "/strategy/{strategyId}/validate",
    response_model=StrategyState,
    response_model_exclude_none=True,
    responses={202: {"model": StrategyState}, **_NOT_FOUND},
    summary="Queue a validation dry run (202) or return the recorded verdict (200)",
)
def validate_strategy(
    strategyId: str, principal: StrategiesWrite, services: ServicesDep
) -> StrategyState | JSONResponse:
    record, started = services.strategies.validate(principal, strategyId)
    if started:
        return JSONResponse(
            {"strategyId": record.strategy_id, "validation": "pending"}, status_code=202
        )
    return _state(record)


def _state(record: StrategyRecord) -> StrategyState:
    return StrategyState(
        strategyId=record.strategy_id,
        name=record.name,
        validation=record.validation.value,
        compiledAt=record.compiled_at,
        validatedAt=record.validated_at,
        requiredSources=list(record.required_sources) or None,  # type: ignore[arg-type]
        detail=record.detail,
        notices=[
            Notice(level=n.level, code=n.code, message=n.message, provenance=n.provenance)  # type: ignore[arg-type]
            for n in record.notices
        ]
        or None,
        declaredProperties=_declared(record),
        _links=StrategyLinks(code=HalLink(href=f"/v1/strategy/{record.strategy_id}/code")),
    )


def _declared(record: StrategyRecord) -> list[DeclaredProperty]:
    return [
        DeclaredProperty(
            name=p.name,
            description=p.description,
            defaultValue=p.default_value,
            reflected=p.reflected,
            min=p.min,
            max=p.max,
            step=p.step,
        )
        for p in record.declared_properties
    ]
