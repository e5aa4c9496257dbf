"""Mounts the live channel (``/connection/websocket``, ``/stream/{secret}``) on the app and
runs its signal bridge for the app's lifetime."""

from __future__ import annotations

from fastapi import FastAPI, WebSocket

from backtestd.api.live_bridge import ParamsRpc, RunAccess, SignalBridge
from backtestd.api.live_channel import (
    ChannelHub,
    ConnectionConfig,
    LiveConnectionEndpoint,
    LiveStreamEndpoint,
)
from backtestd.services.container import Services
from backtestd.settings import Settings

LIVE_BODY_MAX_BYTES = 8192
LIVE_COMMAND_MAX_BYTES = 2048


class _Lazy:
    """The ports answer from the services, which exist only once the lifespan built them."""

    def __init__(self) -> None:
        self.access: RunAccess | None = None
        self.rpc: ParamsRpc | None = None

    async def can_subscribe(self, user_id: str, run_id: str) -> bool:
        assert self.access is not None
        return await self.access.can_subscribe(user_id, run_id)

    async def is_owner(self, user_id: str, run_id: str) -> bool:
        assert self.access is not None
        return await self.access.is_owner(user_id, run_id)

    async def resolve(self, secret: str) -> str | None:
        assert self.access is not None
        return await self.access.resolve(secret)

    async def update_params(self, user_id: str, data: dict[str, object]) -> dict[str, object]:
        assert self.rpc is not None
        return await self.rpc.update_params(user_id, data)


class LiveChannel:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.hub = ChannelHub()
        self._ports = _Lazy()
        self._endpoint: LiveConnectionEndpoint | None = None

    def mount(self, app: FastAPI) -> None:
        origins = tuple(self._settings.live_allowed_origins) or (
            self._settings.resolved_public_base_url,
        )
        self._origins = origins
        app.add_api_websocket_route("/connection/websocket", self._handle)
        app.add_api_websocket_route("/v1/connection/websocket", self._handle)
        stream = LiveStreamEndpoint(hub=self.hub, access=self._ports)
        app.add_api_websocket_route("/stream/{secret}", stream.handle)

    async def _handle(self, websocket: WebSocket) -> None:
        assert self._endpoint is not None
        await self._endpoint.handle(websocket)

    def attach(self, services: Services) -> SignalBridge:
        self._ports.access = RunAccess(services.live_runs, services.live_control)
        self._ports.rpc = ParamsRpc(services.live_control)
        self._endpoint = LiveConnectionEndpoint(
            hub=self.hub,
            token_secret=services.live_tokens.secret,
            access=self._ports,
            rpc=self._ports,
            config=ConnectionConfig(allowed_origins=self._origins, allow_same_host=True),
        )
        bridge = SignalBridge(
            services.database, services.live_runs, self.hub, self._settings.live_poll_seconds
        )
        bridge.start()
        return bridge

    async def detach(self, bridge: SignalBridge) -> None:
        await bridge.stop()
        self.hub.shutdown()
