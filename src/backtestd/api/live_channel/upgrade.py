"""Refusing a WebSocket upgrade: the ``Origin`` rule and an HTTP status instead of a socket."""

from __future__ import annotations

import fnmatch

from starlette.responses import PlainTextResponse
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
    """Refuse the upgrade with an HTTP status (servers without the denial-response extension
    turn a close before accept into 403)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(PlainTextResponse(text, status_code=status))
    else:
        await websocket.close(1008)
