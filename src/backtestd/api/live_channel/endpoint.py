"""The ``/connection/websocket`` route: the upgrade rules, then a ``ClientConnection``.

Mount the bound method ``handle`` on the FastAPI app (a ``WebSocketRoute`` of it works too)::

    endpoint = LiveConnectionEndpoint(hub=hub, token_secret=..., access=..., rpc=...)
    app.add_api_websocket_route("/connection/websocket", endpoint.handle)
    app.add_api_websocket_route("/v1/connection/websocket", endpoint.handle)

At the upgrade: an ``Origin`` that is not allowed gets HTTP 403 (no ``Origin`` — servers and
SDKs — is fine), and no subprotocol is ever selected: the socket speaks JSON only, so a client
that insists on ``centrifuge-protobuf`` (the Java SDK) fails its handshake (spec §7.19).
"""

from __future__ import annotations

from starlette.websockets import WebSocket

from backtestd.api.live_channel.config import ConnectionConfig
from backtestd.api.live_channel.connection import ClientConnection
from backtestd.api.live_channel.hub import ChannelHub
from backtestd.api.live_channel.outbox import CloseRequest, Outbox
from backtestd.api.live_channel.ports import ChannelAccess, LiveParamsRpc
from backtestd.api.live_channel.protocol import CLOSE_SLOW
from backtestd.api.live_channel.session import ClientSession
from backtestd.api.live_channel.upgrade import deny, origin_allowed

SLOW_READER = CloseRequest(CLOSE_SLOW.code, CLOSE_SLOW.reason)


class LiveConnectionEndpoint:
    def __init__(
        self,
        *,
        hub: ChannelHub,
        token_secret: str,
        access: ChannelAccess,
        rpc: LiveParamsRpc,
        config: ConnectionConfig | None = None,
    ) -> None:
        if not token_secret:
            raise ValueError("the live token secret must not be empty")
        self._hub = hub
        self._secret = token_secret
        self._access = access
        self._rpc = rpc
        self._config = config or ConnectionConfig()

    async def handle(self, websocket: WebSocket) -> None:
        config = self._config
        same_host = websocket.headers.get("host") if config.allow_same_host else None
        if not origin_allowed(websocket.headers.get("origin"), config.allowed_origins, same_host):
            await deny(websocket, 403, "origin not allowed")
            return
        await websocket.accept()  # no subprotocol: JSON only
        outbox = Outbox(max_bytes=config.max_queue_bytes, overflow=SLOW_READER)
        session = ClientSession(
            hub=self._hub,
            token_secret=self._secret,
            access=self._access,
            rpc=self._rpc,
            outbox=outbox,
            config=config,
        )
        await ClientConnection(websocket, session, outbox, config).run()
