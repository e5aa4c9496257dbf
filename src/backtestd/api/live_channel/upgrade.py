"""Refusing a WebSocket upgrade: the ``Origin`` rule and an HTTP status instead of a socket."""

from __future__ import annotations

import fnmatch

from starlette.responses import PlainTextResponse, Response
from starlette.websockets import WebSocket


def origin_allowed(origin: str | None, allowed: tuple[str, ...], host: str | None = None) -> bool:
    """No ``Origin`` is allowed; otherwise it must match one of ``allowed`` (``*`` wildcards,
    case-insensitive, a trailing ``/`` ignored), or, when ``host`` is given, name the very host
    the request was sent to (a page served by this server, whatever address the browser used
    for it: Centrifugo's default same-origin rule)."""
    if origin is None:
        return True
    candidate = origin.strip().rstrip("/").lower()
    if host is not None and candidate.split("://", 1)[-1] == host.strip().lower():
        return True
    for pattern in allowed:
        wanted = pattern.strip().rstrip("/").lower()
        if wanted == "*" or fnmatch.fnmatchcase(candidate, wanted):
            return True
    return False


async def deny(websocket: WebSocket, status: int, text: str) -> None:
    """Refuse the upgrade with an HTTP status and a plain-text body (servers without the
    denial-response extension turn a close before accept into 403)."""
    await deny_with(websocket, PlainTextResponse(text, status_code=status))


async def deny_with(
    websocket: WebSocket, response: Response, *, fallback_close: int = 1008
) -> None:
    """Refuse the upgrade with ``response`` (status, headers such as ``Retry-After``, body).

    Without the ASGI denial-response extension the server can only refuse the upgrade with its
    own status (uvicorn: 403); the close is sent with ``fallback_close``.
    """
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(response)
    else:
        await websocket.close(fallback_close)
