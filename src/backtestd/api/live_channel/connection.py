"""The socket shell around a ``ClientSession``: read, handle in order, write, keep time.

Four tasks per connection, so that none waits on another:

* the reader takes frames off the socket, splits them into commands and queues them (it also
  notes when the client was last heard from, which is what the pong check looks at, so a
  slow command — an RPC hitting the database — never makes a live client look dead);
* the processor hands the queued commands to the session one at a time, in order;
* the writer drains the outbox, packing several replies/pushes into one text frame (one JSON
  object per line), and sends the close frame when one was asked for;
* the watchdog closes ``3502`` when no ``connect`` came in time, then pings every
  ``ping_interval`` and closes ``3012`` when nothing came back within ``pong_timeout``, and
  closes ``3005`` once the token expired (plus a grace) without a ``refresh``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from starlette.websockets import WebSocket

from backtestd.api.live_channel import protocol
from backtestd.api.live_channel.config import ConnectionConfig
from backtestd.api.live_channel.outbox import CloseRequest, Outbox
from backtestd.api.live_channel.protocol import (
    CLOSE_EXPIRED,
    CLOSE_NO_PONG,
    CLOSE_SERVER_ERROR,
    CLOSE_STALE,
    ERROR_TOO_MANY_REQUESTS,
    Command,
    Disconnect,
    ReplyError,
)
from backtestd.api.live_channel.session import ClientSession

log = logging.getLogger(__name__)

CLOSE_MESSAGE_TOO_BIG = 1009


class ClientConnection:
    def __init__(
        self, websocket: WebSocket, session: ClientSession, outbox: Outbox, config: ConnectionConfig
    ) -> None:
        self._ws = websocket
        self._session = session
        self._outbox = outbox
        self._config = config
        self._commands: asyncio.Queue[Command] = asyncio.Queue()
        self._last_heard = time.monotonic()

    async def run(self) -> None:
        """Serve the accepted socket until either side closes it."""
        tasks = {
            asyncio.create_task(self._read(), name="live-ws-read"),
            asyncio.create_task(self._write(), name="live-ws-write"),
            asyncio.create_task(self._process(), name="live-ws-process"),
            asyncio.create_task(self._watch(), name="live-ws-watch"),
        }
        reader_or_writer = {t for t in tasks if t.get_name() in ("live-ws-read", "live-ws-write")}
        try:
            await asyncio.wait(reader_or_writer, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self._session.dispose()

    async def _read(self) -> None:
        while True:
            message = await self._ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            self._last_heard = time.monotonic()
            if self._outbox.close_request is not None:
                continue
            data = message.get("text")
            if data is None:
                data = message.get("bytes") or b""
            if len(data) > self._config.max_frame_bytes:
                self._outbox.close(CLOSE_MESSAGE_TOO_BIG, "message too big", drop_pending=True)
                continue
            try:
                commands = protocol.parse_frame(data)
            except Disconnect as exc:
                self._outbox.close(exc.close.code, exc.close.reason)
                continue
            for command in commands:
                if self._commands.qsize() >= self._config.max_pending_commands:
                    if command.id:
                        busy = ReplyError.of(ERROR_TOO_MANY_REQUESTS, temporary=True)
                        self._outbox.put(protocol.error_reply(command.id, busy))
                    continue
                self._commands.put_nowait(command)

    async def _process(self) -> None:
        while True:
            command = await self._commands.get()
            if self._outbox.close_request is not None:
                return
            try:
                line = await self._session.handle(command)
            except ReplyError as exc:
                line = protocol.error_reply(command.id, exc)
            except Disconnect as exc:
                self._outbox.close(exc.close.code, exc.close.reason)
                return
            except Exception:
                log.exception("live channel command %s failed", command.method)
                self._outbox.close(CLOSE_SERVER_ERROR.code, CLOSE_SERVER_ERROR.reason)
                return
            if line is not None:
                self._outbox.put(line)

    async def _write(self) -> None:
        config = self._config
        while True:
            batch = await self._outbox.take(
                max_frames=config.batch_frames, max_bytes=config.batch_bytes
            )
            try:
                if isinstance(batch, CloseRequest):
                    await self._ws.close(batch.code, batch.reason)
                    return
                await self._ws.send_text("\n".join(batch))
            except Exception:  # the client went away mid-write
                return

    async def _watch(self) -> None:
        config = self._config
        try:
            await asyncio.wait_for(self._session.connected.wait(), config.connect_timeout)
        except TimeoutError:
            self._outbox.close(CLOSE_STALE.code, CLOSE_STALE.reason)
            return
        pinger = asyncio.create_task(self._ping())
        try:
            await self._expiry()
        finally:
            pinger.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pinger

    async def _ping(self) -> None:
        config = self._config
        next_ping = time.monotonic() + config.ping_interval
        while True:
            await asyncio.sleep(max(0.0, next_ping - time.monotonic()))
            sent = time.monotonic()
            self._outbox.put(protocol.PING_FRAME)
            await asyncio.sleep(config.pong_timeout)
            if self._last_heard < sent:
                self._outbox.close(CLOSE_NO_PONG.code, CLOSE_NO_PONG.reason)
                return
            next_ping = sent + config.ping_interval

    async def _expiry(self) -> None:
        """Close ``3005`` once the (possibly refreshed) expiry plus the grace has passed."""
        while True:
            deadline = self._session.expires_at + self._config.expired_close_delay
            remaining = deadline - time.time()
            if remaining <= 0:
                self._outbox.close(CLOSE_EXPIRED.code, CLOSE_EXPIRED.reason)
                return
            await asyncio.sleep(remaining)
