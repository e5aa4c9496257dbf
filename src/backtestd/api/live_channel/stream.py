"""The plain stream URL, ``/stream/{secret}`` (spec §5.4, §7.23).

No protocol: each text frame the server sends is one ``LiveSignal`` JSON, from the sandbox
stage on; what the client sends is ignored, except that a frame over 1 KiB closes ``1009``.
The secret is the credential: unknown, rotated or revoked → HTTP 404 at the handshake (never
saying which), a failing lookup → 503. ``?after=<signalId>`` first replays what followed that
signal from the hub's buffer (close ``4001`` before any frame when it is no longer held).
At most ``max_connections_per_url`` sockets per URL (the next is closed ``1013``); a reader
that falls too far behind is closed ``1013``; ``ChannelHub.close_stream`` closes ``1008``.
Per client address (``address_guard.py``): at most ``max_connections_per_address`` sockets,
and a cool-down after too many bad URLs, both refused at the handshake with HTTP 429 and a
``ResponseError`` body (``Retry-After`` for the cool-down), before the secret is looked up.
WebSocket-level pings are the ASGI server's (uvicorn pings every 20 s by default).

Mount: ``app.add_api_websocket_route("/stream/{secret}", endpoint.handle)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from backtestd.api.errors import domain_error_response
from backtestd.api.live_channel.address_guard import StreamAddressGuard
from backtestd.api.live_channel.config import StreamConfig
from backtestd.api.live_channel.hub import ChannelHub, StreamAttach
from backtestd.api.live_channel.outbox import CloseRequest, Outbox
from backtestd.api.live_channel.ports import StreamAccess
from backtestd.api.live_channel.upgrade import deny, deny_with
from backtestd.errors import LimitExceeded

log = logging.getLogger(__name__)

CLOSE_TOO_BIG = (1009, "frame too big")
CLOSE_TRY_AGAIN = (1013, "too many connections")
CLOSE_AFTER_NOT_HELD = (4001, "after signal not held")
SLOW_READER = CloseRequest(1013, "too slow")


class StreamConnection:
    """One stream URL socket: the hub's ``StreamSubscriber``."""

    def __init__(self, websocket: WebSocket, secret: str, config: StreamConfig) -> None:
        self._ws = websocket
        self.secret = secret
        self._config = config
        self._outbox = Outbox(max_bytes=config.max_queue_bytes, overflow=SLOW_READER)

    def deliver(self, frame: str) -> None:
        self._outbox.put(frame)

    def close(self, code: int, reason: str) -> None:
        self._outbox.close(code, reason, drop_pending=True)

    async def run(self) -> None:
        reader = asyncio.create_task(self._read())
        writer = asyncio.create_task(self._write())
        try:
            await asyncio.wait({reader, writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (reader, writer):
                task.cancel()
            for task in (reader, writer):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _read(self) -> None:
        limit = self._config.max_client_frame_bytes
        while True:
            message = await self._ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            size = (
                len(text.encode("utf-8")) if text is not None else len(message.get("bytes") or b"")
            )
            if size > limit:
                self.close(*CLOSE_TOO_BIG)

    async def _write(self) -> None:
        while True:
            batch = await self._outbox.take(max_frames=64, max_bytes=1 << 20)
            try:
                if isinstance(batch, CloseRequest):
                    await self._ws.close(batch.code, batch.reason)
                    return
                for frame in batch:
                    await self._ws.send_text(frame)
            except Exception:  # the client went away mid-write
                return


class LiveStreamEndpoint:
    def __init__(
        self, *, hub: ChannelHub, access: StreamAccess, config: StreamConfig | None = None
    ) -> None:
        self._hub = hub
        self._access = access
        self._config = config or StreamConfig()
        self._guard = StreamAddressGuard(self._config)

    async def handle(self, websocket: WebSocket) -> None:
        address = websocket.client.host if websocket.client else "unknown"
        try:
            self._guard.admit(address)
        except LimitExceeded as exc:
            await self._refuse(websocket, exc)
            return
        try:
            await self._serve(websocket, address)
        finally:
            self._guard.release(address)

    async def _refuse(self, websocket: WebSocket, exc: LimitExceeded) -> None:
        await deny_with(websocket, domain_error_response(exc), fallback_close=CLOSE_TRY_AGAIN[0])

    async def _serve(self, websocket: WebSocket, address: str) -> None:
        secret = str(websocket.path_params.get("secret", ""))
        try:
            run_id = await self._access.resolve(secret) if secret else None
        except Exception:
            log.exception("resolving a live stream URL failed")
            await deny(websocket, 503, "stream temporarily unavailable")
            return
        if run_id is None:
            try:
                self._guard.bad_url(address)
            except LimitExceeded as exc:
                log.warning(
                    "stream URL: client address %s presented too many unknown URLs; its "
                    "stream handshakes are refused 429 for %g s",
                    address,
                    self._config.bad_url_cooldown,
                )
                await self._refuse(websocket, exc)
                return
            await deny(websocket, 404, "not found")
            return
        try:
            await websocket.accept()
        except (OSError, RuntimeError, WebSocketDisconnect):  # the client left during the lookup
            return
        connection = StreamConnection(websocket, secret, self._config)
        attached = self._hub.attach_stream(
            run_id,
            connection,
            after=websocket.query_params.get("after"),
            max_per_url=self._config.max_connections_per_url,
        )
        if attached is StreamAttach.TOO_MANY:
            await websocket.close(*CLOSE_TRY_AGAIN)
            return
        if attached is StreamAttach.AFTER_NOT_HELD:
            await websocket.close(*CLOSE_AFTER_NOT_HELD)
            return
        try:
            await connection.run()
        finally:
            self._hub.detach_stream(run_id, connection)
