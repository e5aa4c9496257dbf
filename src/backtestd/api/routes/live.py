"""Live-execution routes (``spec/live-execution.md`` §3): start, read, list, change, stop a
live run; its parameters, commands, signals, connection token and stream URL."""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from backtestd.api.deps import LiveRead, LiveWrite, ServicesDep
from backtestd.api.errors import describe_validation
from backtestd.api.live_wire import (
    compact_wire,
    params_result_wire,
    public_wire,
    run_wire,
    signal_wire,
    start_request,
    summary_wire,
)
from backtestd.api.schemas import live as wire
from backtestd.api.schemas.common import HalLink, RequestBody, ResponseDocs, ResponseError
from backtestd.domain.live import Visibility
from backtestd.errors import InvalidInput
from backtestd.services.live.signal_reads import signal_query

router = APIRouter(tags=["live"], responses={401: {"model": ResponseError}})
_ERRORS: ResponseDocs = {s: {"model": ResponseError} for s in (400, 403, 404, 409)}
Body = TypeVar("Body", bound=RequestBody)
Limit = Annotated[int | None, Query(description="entries per page, 1 to 100 (default 20)")]
Cursor = Annotated[str | None, Query(description="the cursor of _links.next")]


async def _body(request: Request, model: type[Body], *, optional: bool = False) -> Body:
    """The JSON body as ``model``; an empty body is ``{}`` where the body is optional (the
    generated client sends a PATCH without one), and every problem is a 400 naming it."""
    raw = await request.body()
    if not raw.strip():
        if optional:
            return model.model_validate({})
        raise InvalidInput("the request needs a JSON body", reason="INVALID_REQUEST")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput(
            "the body is not JSON; send a JSON object", reason="INVALID_REQUEST"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput("the body must be a JSON object", reason="INVALID_REQUEST")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(describe_validation(exc.errors())) from None


def _now(services: Any) -> int:
    return int(services.live_runs.wall_now())


@router.post(
    "/strategy/{strategyId}/live",
    response_model=wire.LiveRun,
    response_model_exclude_none=True,
    status_code=201,
    responses={**_ERRORS, 402: {"model": ResponseError}, 429: {"model": ResponseError}},
    summary="Start a live run of a registered strategy (sandbox trial first)",
)
async def start_live(
    strategyId: str, request: Request, principal: LiveWrite, services: ServicesDep
) -> wire.LiveRun:
    body = await _body(request, wire.StartLiveRequest)
    start = start_request(body)
    started = await run_in_threadpool(services.live_runs.start, principal, strategyId, start)
    return run_wire(started.record, _now(services), with_start=True, stream_url=started.stream_url)


@router.get(
    "/strategy/{strategyId}/live",
    response_model=wire.LiveRun,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="The live run the caller last started for this strategy",
)
def get_live(strategyId: str, principal: LiveRead, services: ServicesDep) -> wire.LiveRun:
    record = services.live_runs.last_for_strategy(principal, strategyId)
    return run_wire(
        record,
        _now(services),
        with_stats=True,
        with_start=True,
        stream_url=services.live_runs.stream_url(record),
    )


@router.delete(
    "/strategy/{strategyId}/live",
    response_model=wire.LiveRun,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Stop the strategy's live run (idempotent)",
)
def stop_live(strategyId: str, principal: LiveWrite, services: ServicesDep) -> wire.LiveRun:
    record = services.live_runs.stop(principal, strategyId)
    return run_wire(record, _now(services))


def next_href(path: str, limit: int | None, cursor: str | None, **filters: Any) -> HalLink | None:
    if cursor is None:
        return None
    query = {k: v for k, v in filters.items() if v is not None}
    if limit is not None:
        query["limit"] = limit
    query["cursor"] = cursor
    return HalLink(href=f"/v1{path}?{urlencode(query)}")


@router.get(
    "/live",
    response_model=wire.LiveListResponse,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="The caller's live runs, newest first",
)
def list_live(
    principal: LiveRead, services: ServicesDep, cursor: Cursor = None, limit: Limit = None
) -> wire.LiveListResponse:
    _check_limit(limit)
    runs, after = services.live_runs.list_own(principal, cursor, limit or 20)
    link = next_href("/live", limit, after)
    return wire.LiveListResponse(
        runs=[summary_wire(r) for r in runs],
        _links=wire.NextLink(next=link) if link else None,
    )


@router.get(
    "/live/public",
    response_model=wire.PublicLiveListResponse,
    response_model_exclude_none=True,
    responses={400: {"model": ResponseError}},
    summary="Public live runs (no authentication), most recently started first",
)
def list_public_live(
    services: ServicesDep, cursor: Cursor = None, limit: Limit = None
) -> wire.PublicLiveListResponse:
    _check_limit(limit)
    runs, after = services.live_runs.list_public(cursor, limit or 20)
    link = next_href("/live/public", limit, after)
    return wire.PublicLiveListResponse(
        runs=[public_wire(r) for r in runs],
        _links=wire.NextLink(next=link) if link else None,
    )


def _check_limit(limit: int | None) -> None:
    if limit is not None and limit < 1:
        raise InvalidInput(f"limit {limit} must be at least 1", reason="INVALID_LIMIT")


@router.post(
    "/live/token",
    response_model=wire.LiveConnectionToken,
    responses={403: {"model": ResponseError}},
    summary="A token for the live WebSocket channel (/connection/websocket)",
)
def mint_live_token(principal: LiveRead, services: ServicesDep) -> wire.LiveConnectionToken:
    token, expires_at_ms = services.live_tokens.mint(principal.user_id)
    return wire.LiveConnectionToken(token=token, expiresAtMs=expires_at_ms)


@router.get(
    "/live/{runId}",
    response_model=wire.LiveRun,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="One of the caller's live runs",
)
def get_live_run(runId: str, principal: LiveRead, services: ServicesDep) -> wire.LiveRun:
    record = services.live_runs.own(principal, runId)
    return run_wire(record, _now(services), with_stats=True, with_updated=True)


@router.patch(
    "/live/{runId}",
    response_model=wire.LiveRunCompact,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Change a live run's visibility, name or description",
)
async def update_live(
    runId: str, request: Request, principal: LiveWrite, services: ServicesDep
) -> wire.LiveRunCompact:
    body = await _body(request, wire.UpdateLiveRequest, optional=True)
    record = await run_in_threadpool(
        services.live_runs.update,
        principal,
        runId,
        Visibility(body.visibility) if body.visibility else None,
        body.name,
        body.description,
    )
    return compact_wire(record)


@router.put(
    "/live/{runId}/params",
    response_model=wire.LiveParamsUpdateResult,
    responses=_ERRORS,
    summary="Change a live run's parameters from a market position a few seconds ahead",
)
async def update_live_params(
    runId: str, request: Request, principal: LiveWrite, services: ServicesDep
) -> wire.LiveParamsUpdateResult:
    body = await _body(request, wire.UpdateLiveParamsRequest)
    result = await run_in_threadpool(
        services.live_control.update_params, principal.user_id, runId, body.params
    )
    return params_result_wire(result)


@router.post(
    "/live/{runId}/commands",
    response_model=wire.LiveCommandResult,
    status_code=202,
    responses={**_ERRORS, 413: {"model": ResponseError}, 503: {"model": ResponseError}},
    summary="Send a transient command to a running strategy",
)
async def send_live_command(
    runId: str, request: Request, principal: LiveWrite, services: ServicesDep
) -> wire.LiveCommandResult:
    body = await _body(request, wire.SendLiveCommandRequest)
    accepted = await run_in_threadpool(
        services.live_control.send_command,
        principal,
        runId,
        body.command,
        body.properties or {},
    )
    return wire.LiveCommandResult(
        runId=accepted.run_id,
        commandId=accepted.command_id,
        effectiveAtMs=accepted.effective_at_ms,
    )


@router.get(
    "/live/{runId}/signals",
    response_model=wire.LiveSignalPageDoc,
    responses={**_ERRORS, 410: {"model": ResponseError}},
    summary="A page of a live run's recorded signals, oldest first",
)
def get_live_signals(
    runId: str,
    principal: LiveRead,
    services: ServicesDep,
    sinceMs: int | None = None,
    instrument: str | None = None,
    type: str | None = None,
    cursor: Cursor = None,
    limit: Limit = None,
) -> JSONResponse:
    query = signal_query(sinceMs, instrument, type, cursor, limit)
    page = services.live_signals.page(principal.user_id, runId, query)
    body: dict[str, object] = {"signals": [signal_wire(s.body) for s in page.signals]}
    if page.available_since_ms is not None:
        body["availableSinceMs"] = page.available_since_ms
    link = next_href(
        f"/live/{runId}/signals",
        limit,
        page.next_cursor,
        sinceMs=sinceMs,
        instrument=instrument,
        type=type,
    )
    if link is not None:
        body["_links"] = {"next": {"href": link.href}}
    return JSONResponse(body)


@router.post(
    "/live/{runId}/stream",
    response_model=wire.LiveStreamUrl,
    responses={**_ERRORS, 402: {"model": ResponseError}},
    summary="Rotate a live run's stream URL (the old one stops working)",
)
def rotate_live_stream(
    runId: str, principal: LiveWrite, services: ServicesDep
) -> wire.LiveStreamUrl:
    return wire.LiveStreamUrl(streamUrl=services.live_control.rotate_stream(principal, runId))


@router.delete(
    "/live/{runId}/stream",
    response_model=wire.LiveStreamRevoked,
    responses=_ERRORS,
    summary="Revoke a live run's stream URL for good",
)
def revoke_live_stream(
    runId: str, principal: LiveWrite, services: ServicesDep
) -> wire.LiveStreamRevoked:
    services.live_control.revoke_stream(principal, runId)
    return wire.LiveStreamRevoked(runId=runId, revoked=True)
