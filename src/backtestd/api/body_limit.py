"""Caps every request body before any route reads it.

A declared ``Content-Length`` over the cap is refused at once; a chunked body is counted as it
streams and refused when it passes the cap. Either way the answer is 413 ``ResponseError``
naming the cap, and the route never runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, cap_for: Callable[[str, str], int | None]) -> None:
        self._app = app
        self._cap_for = cap_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self._app(scope, receive, send)
            return
        cap = self._cap_for(scope["method"], scope["path"])
        if cap is None:  # the route streams and caps its own body (dataset uploads)
            await self._app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > cap:
            await _too_large(send, cap, scope)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > cap:
                await _too_large(send, cap, scope)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self._app(scope, replay, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _too_large(send: Send, cap: int, scope: Scope) -> None:
    message = (
        f"request body too large: {scope['method']} {scope['path']} accepts at most {cap} bytes"
    )
    payload = json.dumps({"code": 413, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
