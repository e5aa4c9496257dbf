"""A real uvicorn server carrying only the live channel's sockets, for its integration tests.

A FastAPI app mounts the endpoints the way the service does: ``LiveConnectionEndpoint`` on
``/connection/websocket`` with the spec's timings and on ``/fast/connection/websocket`` with
second-scale ones (ping, pong, connect and expiry grace) so the timer rules can be watched,
and ``LiveStreamEndpoint`` on ``/stream/{secret}`` with the spec's limits and on
``/fast/stream/{secret}`` with a one-second bad-URL cool-down (``FAST_STREAM``). Run access is
a dict of ``LiveRun`` records standing in for the service's run table, with the same rules
(§5.2). The server runs in a thread with its own event loop; ``call`` runs a hub method on that
loop, as the service's signal bus would.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import threading
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from backtestd.api.live_channel import (
    ChannelHub,
    ConnectionConfig,
    HubConfig,
    LiveConnectionEndpoint,
    LiveParamsRpcError,
    LiveStreamEndpoint,
    StreamConfig,
)
from backtestd.errors import Conflict, NotFound
from backtestd.services.live_tokens import mint_live_token
from tests.support.ports import free_port

SECRET = "live-channel-test-secret"
LEGACY_WEBSOCKETS_WARNINGS = "ignore::DeprecationWarning:websockets.legacy"
"""For ``pytest.mark.filterwarnings``: uvicorn's default WebSocket implementation (the one
``backtestd serve`` runs) is built on websockets' legacy API, which warns on import and on
every connection (in the server's thread, where the suite's ``error`` filter would turn the
warning into a failed handshake)."""
ALLOWED_ORIGIN = "https://app.example.com"
FAST = ConnectionConfig(
    allowed_origins=(ALLOWED_ORIGIN,),
    ping_interval=1.0,
    pong_timeout=1.0,
    connect_timeout=1.0,
    expired_close_delay=1.0,
)
UNREACHABLE_SECRET = "u" * 43
"""A stream secret whose lookup fails, as with the database down."""
FAST_STREAM = StreamConfig(bad_url_cooldown=1.0)
"""The stream URL's spec limits, but an address that presented too many bad URLs is refused
for one second only."""
SPEC = ConnectionConfig(allowed_origins=(ALLOWED_ORIGIN, "https://*.trusted.example"))


@dataclass
class LiveRun:
    owner: str
    public: bool = False
    live: bool = False
    running: bool = True
    params_version: int = 0
    params: dict[str, Any] = field(default_factory=dict)


class Runs:
    """The in-test run table and the three protocols over it."""

    def __init__(self) -> None:
        self.runs: dict[str, LiveRun] = {}
        self.stream_secrets: dict[str, str] = {}

    def add(self, owner: str = "alice", **flags: Any) -> str:
        run_id = uuid.uuid4().hex[:22]
        self.runs[run_id] = LiveRun(owner=owner, **flags)
        return run_id

    def add_stream(self, run_id: str) -> str:
        secret = uuid.uuid4().hex + uuid.uuid4().hex[:11]
        self.stream_secrets[secret] = run_id
        return secret

    async def can_subscribe(self, user_id: str, run_id: str) -> bool:
        run = self.runs.get(run_id)
        return run is not None and (run.owner == user_id or (run.public and run.live))

    async def is_owner(self, user_id: str, run_id: str) -> bool:
        run = self.runs.get(run_id)
        return run is not None and run.owner == user_id

    async def update_params(self, user_id: str, data: dict[str, Any]) -> dict[str, Any]:
        run = self.runs.get(str(data.get("runId")))
        if run is None or run.owner != user_id:
            raise NotFound("no such run")
        params = data.get("params")
        if not isinstance(params, dict) or not params:
            raise LiveParamsRpcError(400, "params must be a non-empty object")
        if not run.running:
            raise Conflict("the run is not running")
        run.params_version += 1
        run.params.update(params)
        return {
            "runId": data["runId"],
            "paramsVersion": run.params_version,
            "effectiveAtMs": int(time.time() * 1000) + 5000,
        }

    async def resolve(self, secret: str) -> str | None:
        if secret == UNREACHABLE_SECRET:
            raise ConnectionError("the run table cannot be read right now")
        return self.stream_secrets.get(secret)


class LiveChannelServer:
    def __init__(self, hub_config: HubConfig | None = None) -> None:
        self.runs = Runs()
        self.hub = ChannelHub(hub_config)
        self.port = free_port()
        self.loop: asyncio.AbstractEventLoop | None = None
        app = FastAPI(lifespan=self._lifespan)
        for path, config in (("/connection/websocket", SPEC), ("/fast/connection/websocket", FAST)):
            endpoint = LiveConnectionEndpoint(
                hub=self.hub, token_secret=SECRET, access=self.runs, rpc=self.runs, config=config
            )
            app.add_api_websocket_route(path, endpoint.handle)
        for path, stream_config in (
            ("/stream/{secret}", StreamConfig()),
            ("/fast/stream/{secret}", FAST_STREAM),
        ):
            stream = LiveStreamEndpoint(hub=self.hub, access=self.runs, config=stream_config)
            app.add_api_websocket_route(path, stream.handle)
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # see LEGACY_WEBSOCKETS_WARNINGS
            config.load()
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    @contextlib.asynccontextmanager
    async def _lifespan(self, _app: FastAPI) -> AsyncIterator[None]:
        self.loop = asyncio.get_running_loop()
        yield
        self.hub.shutdown()

    def url(self, path: str = "/connection/websocket") -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the live channel test server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``fn`` on the server's event loop (where the hub lives) and return its result
        (awaited when it is a coroutine)."""
        assert self.loop is not None

        async def run() -> Any:
            result = fn(*args, **kwargs)
            return await result if inspect.isawaitable(result) else result

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout=30)

    async def acall(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``call`` from a coroutine, without blocking the caller's loop."""
        return await asyncio.to_thread(self.call, fn, *args, **kwargs)

    def publish(self, run_id: str, seq: int, *, sandbox: bool = True, **extra: Any) -> dict:
        """Publish one signal shaped like a ``LiveSignal`` and return it."""
        signal = signal_of(run_id, seq, sandbox=sandbox, **extra)
        self.call(self.hub.publish, run_id, signal, sandbox=sandbox)
        return signal

    async def apublish(self, run_id: str, seq: int, *, sandbox: bool = True, **extra: Any) -> dict:
        """``publish`` from a coroutine."""
        return await asyncio.to_thread(self.publish, run_id, seq, sandbox=sandbox, **extra)


def signal_of(run_id: str, seq: int, *, sandbox: bool = True, **extra: Any) -> dict[str, Any]:
    return {
        "signalId": f"{run_id}-{seq:06d}",
        "runId": run_id,
        "type": "hint",
        "kind": "enterLong",
        "stage": "sandbox" if sandbox else "live",
        "eventTsMs": 1767225600000 + seq * 1000,
        "instrument": {"exchange": "binance", "segment": "spot", "symbol": "BTC/USDT"},
        "data": {"price": 100 + seq},
        **extra,
    }


def token(user_id: str = "alice", **kwargs: Any) -> str:
    return mint_live_token(SECRET, user_id, **kwargs).token


class RawClient:
    """A bare WebSocket client speaking the JSON protocol by hand, for what SDKs hide."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.pending: list[dict[str, Any]] = []
        self.pushes: list[dict[str, Any]] = []
        self.frames = 0
        self.pings = 0
        self.answer_pings = False

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, url: str, **kwargs: Any) -> AsyncIterator[RawClient]:
        async with connect(url, proxy=None, open_timeout=5, close_timeout=1, **kwargs) as ws:
            yield cls(ws)

    async def send(self, *commands: dict[str, Any]) -> None:
        """All ``commands`` in one text frame, one per line."""
        await self.ws.send("\n".join(json.dumps(c) for c in commands))

    async def next(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next reply or push (pings are counted, and answered when asked to)."""
        while True:
            if not self.pending:
                frame = await asyncio.wait_for(self.ws.recv(), timeout)
                assert isinstance(frame, str), "the protocol is JSON in text frames"
                self.frames += 1
                self.pending = [json.loads(line) for line in frame.split("\n") if line.strip()]
                continue
            message = self.pending.pop(0)
            if message == {}:
                self.pings += 1
                if self.answer_pings:
                    await self.ws.send("{}")
                continue
            return message

    async def reply(self, command_id: int, timeout: float = 5.0) -> dict[str, Any]:
        """The reply to ``command_id``; pushes read on the way are kept in ``pushes``."""
        while True:
            message = await self.next(timeout)
            if message.get("id") == command_id:
                return message
            assert "push" in message, f"unexpected message {message}"
            self.pushes.append(message)

    async def push(self, timeout: float = 5.0) -> dict[str, Any]:
        if self.pushes:
            return self.pushes.pop(0)
        message = await self.next(timeout)
        assert "push" in message, f"expected a push, got {message}"
        return message

    async def connect(self, user_id: str = "alice") -> dict[str, Any]:
        await self.send({"id": 1, "connect": {"token": token(user_id)}})
        reply = await self.reply(1)
        assert "connect" in reply, reply
        return reply["connect"]

    async def closed(self, timeout: float = 5.0) -> tuple[int | None, str | None]:
        """Read until the server closes; its close code and reason."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.next(timeout)
        return self.ws.close_code, self.ws.close_reason
