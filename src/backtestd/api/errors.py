"""The one table mapping domain errors to HTTP statuses and ``ResponseError`` bodies.

Every error leaves the service as JSON ``{code, message}`` with ``code`` equal to the status,
including unknown routes, wrong methods and request validation (400, not FastAPI's 422, since
the API documents 400 for invalid requests). ``POST /auth/token`` rejections use
``AuthTokenError``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from backtestd.errors import (
    ApiKeyRejected,
    BacktestdError,
    Conflict,
    Forbidden,
    Gone,
    InsufficientScope,
    InvalidInput,
    LimitExceeded,
    NotFound,
    PayloadTooLarge,
    PlanRequired,
    ServiceUnavailable,
    Unauthenticated,
)

log = logging.getLogger(__name__)

STATUS_BY_ERROR: dict[type[BacktestdError], int] = {
    InvalidInput: 400,
    Unauthenticated: 401,
    PlanRequired: 402,
    InsufficientScope: 403,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Gone: 410,
    PayloadTooLarge: 413,
    LimitExceeded: 429,
    ServiceUnavailable: 503,
}


def error_response(status: int, message: str, extra: dict[str, Any] | None = None) -> JSONResponse:
    body = {"code": status, "message": abbreviated(message), **(extra or {})}
    return JSONResponse(body, status_code=status)


LONG_RUN = re.compile(r"\S{200,}")
"""A run of text without spaces this long is a value the request sent, echoed by the message."""


def abbreviated(message: str) -> str:
    """``message`` with every run of 200 or more characters without a space cut to its first 80
    and its length. Messages quote what was wrong (``'name' must be 1 to 256 characters; got
    '...'``), and a 200,000-character name came back whole: a 200 KB error body.

    >>> abbreviated("got '" + "x" * 300 + "'").endswith("x… (302 characters)")
    True
    >>> len(abbreviated("got '" + "x" * 300 + "'"))
    102
    """
    return LONG_RUN.sub(lambda m: f"{m[0][:80]}… ({len(m[0])} characters)", message)


def _envelope(exc: BacktestdError) -> dict[str, Any]:
    """The richer envelope's extra keys (older clients ignore them): reason, retryable, next."""
    extra: dict[str, Any] = {"reason": exc.reason, "retryable": exc.retryable}
    if exc.next_call:
        extra["next"] = exc.next_call
    if isinstance(exc, PlanRequired) and exc.upgrade_url:
        extra["upgradeUrl"] = exc.upgrade_url
    return extra


def domain_error_response(exc: BacktestdError) -> JSONResponse:
    """The answer to a domain error: its status, ``ResponseError`` envelope and ``Retry-After``.

    Also used by middleware, which runs outside the exception handlers.
    """
    response = error_response(status_for(exc), exc.message, _envelope(exc))
    if exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


def status_for(error: BacktestdError) -> int:
    """The HTTP status of a domain error (500 for one the table does not know)."""
    for cls in type(error).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return 500


def describe_validation(errors: Sequence[Mapping[str, Any]]) -> str:
    """One message naming every field a request failed on (FastAPI's or pydantic's errors)."""
    problems = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        where = ".".join(loc) if loc else "request body"
        problems.append(f"{where}: {err.get('msg', 'invalid')}")
    return "invalid request: " + "; ".join(problems)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiKeyRejected)
    async def _api_key(_: Request, exc: ApiKeyRejected) -> JSONResponse:
        return JSONResponse({"code": exc.code, "message": exc.message}, status_code=exc.status)

    @app.exception_handler(InsufficientScope)
    async def _scope(_: Request, exc: InsufficientScope) -> JSONResponse:
        body = {"code": "insufficient_scope", "message": exc.message, "required": exc.required}
        return JSONResponse(body, status_code=403)

    @app.exception_handler(BacktestdError)
    async def _domain(_: Request, exc: BacktestdError) -> JSONResponse:
        return domain_error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(
            400,
            describe_validation(exc.errors()),
            {"reason": "INVALID_REQUEST", "retryable": False},
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            message = (
                f"no route {request.method} {request.url.path}; "
                "see /v1/docs for the available endpoints"
            )
        elif exc.status_code == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
        else:
            message = str(exc.detail)
        response = error_response(exc.status_code, message)
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(
            500, "internal error while handling the request; the server log has details"
        )
