"""The real-time channel of live runs (spec §5): a Centrifugo v6 JSON client-protocol server on
``/connection/websocket`` and the plain stream URL ``/stream/{secret}``, fed by one in-process
``ChannelHub``.

Wiring (in the application factory; ``hub.shutdown()`` in the lifespan's exit)::

    hub = ChannelHub()
    live_ws = LiveConnectionEndpoint(
        hub=hub, token_secret=secret, access=access, rpc=rpc,
        config=ConnectionConfig(allowed_origins=(public_origin,)),
    )
    app.add_api_websocket_route("/connection/websocket", live_ws.handle)
    app.add_api_websocket_route("/v1/connection/websocket", live_ws.handle)
    stream_url = LiveStreamEndpoint(hub=hub, access=streams)
    app.add_api_websocket_route("/stream/{secret}", stream_url.handle)
    ...
    hub.publish(run_id, signal_wire_dict, sandbox=signal_wire_dict["stage"] == "sandbox")
"""

from backtestd.api.live_channel.config import ConnectionConfig, HubConfig, StreamConfig
from backtestd.api.live_channel.endpoint import LiveConnectionEndpoint
from backtestd.api.live_channel.hub import ChannelHub
from backtestd.api.live_channel.ports import (
    ChannelAccess,
    LiveParamsRpc,
    LiveParamsRpcError,
    StreamAccess,
)
from backtestd.api.live_channel.stream import LiveStreamEndpoint

__all__ = [
    "ChannelAccess",
    "ChannelHub",
    "ConnectionConfig",
    "HubConfig",
    "LiveConnectionEndpoint",
    "LiveParamsRpc",
    "LiveParamsRpcError",
    "LiveStreamEndpoint",
    "StreamAccess",
    "StreamConfig",
]
