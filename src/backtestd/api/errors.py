"""The one table mapping domain errors to HTTP statuses and ``ResponseError`` bodies.

Every error leaves the service as JSON ``{code, message}`` with ``code`` equal to the status,
including unknown routes, wrong methods and request validation (400, not FastAPI's 422, since
the API documents 400 for invalid requests). ``POST /auth/token`` rejections use
``AuthTokenError``.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from backtestd.errors import (
    ApiKeyRejected,
    BacktestdError,
    Conflict,
    InvalidInput,
    LimitExceeded,
    NotFound,
    PayloadTooLarge,
    Unauthenticated,
)

log = logging.getLogger(__name__)

STATUS_BY_ERROR: dict[type[BacktestdError], int] = {
    InvalidInput: 400,
    Unauthenticated: 401,
    NotFound: 404,
    Conflict: 409,
    PayloadTooLarge: 413,
    LimitExceeded: 429,
}


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse({"code": status, "message": message}, status_code=status)


def _status_for(error: BacktestdError) -> int:
    for cls in type(error).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return 500


def _describe_validation(exc: RequestValidationError) -> str:
    problems = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        where = ".".join(loc) if loc else "request body"
        problems.append(f"{where}: {err.get('msg', 'invalid')}")
    return "invalid request: " + "; ".join(problems)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiKeyRejected)
    async def _api_key(_: Request, exc: ApiKeyRejected) -> JSONResponse:
        return JSONResponse({"code": exc.code, "message": exc.message}, status_code=401)

    @app.exception_handler(BacktestdError)
    async def _domain(_: Request, exc: BacktestdError) -> JSONResponse:
        response = error_response(_status_for(exc), exc.message)
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            response.headers["Retry-After"] = str(retry_after)
        return response

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(400, _describe_validation(exc))

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
