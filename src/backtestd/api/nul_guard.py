"""Refuses a request whose path or query holds the NUL character, before any route runs.

No identifier, cursor, name or value of this API may hold NUL (U+0000, ``%00`` in a URL):
PostgreSQL cannot store or even compare such text and failed the statement (a 500 where the
same request on SQLite answered 404), so ``GET /v1/live/public?cursor=%00`` or
``GET /v1/strategy/%00`` reached the server-error handler. Bodies are checked by their models
(``RequestBody``); the storage layer replaces NUL in whatever text still reaches it
(``storage/db/text_params.py``).
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from backtestd.api.errors import domain_error_response
from backtestd.errors import InvalidInput

NUL = "\x00"


class NulGuardMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = nul_in_url(scope["path"], scope.get("query_string", b""))
            if problem is not None:
                error = InvalidInput(problem, reason="INVALID_REQUEST")
                await domain_error_response(error)(scope, receive, send)
                return
        await self._app(scope, receive, send)


def nul_in_url(path: str, query: bytes) -> str | None:
    """What holds NUL in a request's (decoded) path or raw query string, as an error message;
    ``None`` when nothing does.

    >>> nul_in_url("/v1/strategy/a", b"limit=5&cursor=%00").startswith("query parameter 'cursor'")
    True
    >>> nul_in_url("/v1/live/public", b"limit=5") is None
    True
    """
    fix = "remove it and send the request again"
    if NUL in path:
        return (
            "the path holds the NUL character (%00), which no identifier in this API may "
            f"contain; {fix}"
        )
    if b"%00" not in query and b"\x00" not in query:
        return None
    for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if NUL in name or NUL in value:
            shown = name.replace(NUL, "%00")
            return (
                f"query parameter {shown!r} holds the NUL character (%00), which no value in "
                f"this API may contain; {fix}"
            )
    return None
