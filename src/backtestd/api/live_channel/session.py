"""One Centrifugo-protocol connection's state and command handling, without the socket.

``ClientSession.handle`` takes one parsed command and returns the reply line (or ``None``),
raises ``ReplyError`` for an error reply, or ``Disconnect`` when the connection must close.
The socket shell (``connection.py``) reads frames, feeds commands in order, writes what lands
in the outbox and runs the timers. The session is also the hub's ``ChannelSubscriber``: pushes
go straight into the outbox.

States: waiting for ``connect`` (anything else closes ``3501``; an expired token answers
``109`` and leaves the connection waiting for another ``connect``) → connected (one user, a
token expiry that ``refresh`` moves forward, a set of subscribed runs).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import Callable
from typing import Any

import orjson

from backtestd.api.live_channel import protocol
from backtestd.api.live_channel.buffers import StalePosition
from backtestd.api.live_channel.config import ConnectionConfig
from backtestd.api.live_channel.hub import ChannelHub
from backtestd.api.live_channel.outbox import Outbox
from backtestd.api.live_channel.ports import ChannelAccess, LiveParamsRpc, LiveParamsRpcError
from backtestd.api.live_channel.protocol import (
    CLOSE_BAD_REQUEST,
    CLOSE_INVALID_TOKEN,
    CLOSE_SHUTDOWN,
    ERROR_ALREADY_SUBSCRIBED,
    ERROR_BAD_REQUEST,
    ERROR_INTERNAL,
    ERROR_LIMIT_EXCEEDED,
    ERROR_METHOD_NOT_FOUND,
    ERROR_NOT_AVAILABLE,
    ERROR_PERMISSION_DENIED,
    ERROR_TOKEN_EXPIRED,
    ERROR_UNKNOWN_CHANNEL,
    ERROR_UNRECOVERABLE_POSITION,
    Command,
    Disconnect,
    ReplyError,
)
from backtestd.errors import Conflict, InvalidInput, NotFound
from backtestd.services.live_tokens import (
    LiveTokenClaims,
    LiveTokenExpired,
    LiveTokenInvalid,
    verify_live_token,
)

log = logging.getLogger(__name__)

LIVE_PARAMS_METHOD = "live.params"
HISTORY_MAX_LIMIT = 300
_SUBSCRIBE_RECHECKS = 3


class ClientSession:
    def __init__(
        self,
        *,
        hub: ChannelHub,
        token_secret: str,
        access: ChannelAccess,
        rpc: LiveParamsRpc,
        outbox: Outbox,
        config: ConnectionConfig,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._hub = hub
        self._secret = token_secret
        self._access = access
        self._rpc = rpc
        self._outbox = outbox
        self._config = config
        self._wall_clock = wall_clock
        self.client_id = str(uuid.uuid4())
        self.connected = asyncio.Event()
        self._user_id = ""
        self.expires_at = 0.0
        self.subscriptions: set[str] = set()
        self._owned: dict[str, bool] = {}
        self._closed = False

    # -- ChannelSubscriber --------------------------------------------------------------------

    @property
    def user_id(self) -> str:
        return self._user_id

    def deliver(self, frame: str) -> None:
        self._outbox.put(frame)

    def server_unsubscribe(self, run_id: str) -> None:
        if run_id in self.subscriptions:
            self.subscriptions.discard(run_id)
            self._outbox.put(protocol.unsubscribe_push(protocol.channel_of(run_id)))

    def shutdown(self) -> None:
        self._outbox.close(CLOSE_SHUTDOWN.code, CLOSE_SHUTDOWN.reason)

    # -- lifecycle ----------------------------------------------------------------------------

    def dispose(self) -> None:
        """Leave the hub; the connection is over."""
        self._closed = True
        self._hub.unregister(self, set(self.subscriptions))
        self.subscriptions.clear()

    # -- commands -----------------------------------------------------------------------------

    async def handle(self, command: Command) -> str | None:
        if not self.connected.is_set():
            if command.method != "connect":
                raise Disconnect(CLOSE_BAD_REQUEST)
            return self._connect(command)
        match command.method:
            case None | "send":
                return None
            case "connect":
                raise Disconnect(CLOSE_BAD_REQUEST)
            case "refresh":
                return self._refresh(command)
            case "subscribe":
                return await self._subscribe(command)
            case "unsubscribe":
                return self._unsubscribe(command)
            case "history":
                return await self._history(command)
            case "rpc":
                return await self._call(command)
            case "publish":
                raise ReplyError.of(ERROR_PERMISSION_DENIED)
            case _:  # presence, presence_stats, sub_refresh
                raise ReplyError.of(ERROR_NOT_AVAILABLE)

    def _verify(self, params: dict[str, Any]) -> LiveTokenClaims:
        try:
            return verify_live_token(self._secret, params.get("token", ""), now=self._wall_clock())
        except LiveTokenExpired as exc:
            raise ReplyError.of(ERROR_TOKEN_EXPIRED) from exc
        except LiveTokenInvalid as exc:
            raise Disconnect(CLOSE_INVALID_TOKEN) from exc

    def _ttl(self) -> int:
        return max(1, int(self.expires_at - self._wall_clock()))

    def _connect(self, command: Command) -> str:
        claims = self._verify(command.params)
        self._user_id = claims.user_id
        self.expires_at = claims.expires_at
        self.connected.set()
        self._hub.register(self)
        result = {
            "client": self.client_id,
            "expires": True,
            "ttl": self._ttl(),
            "ping": math.ceil(self._config.ping_interval),
            "pong": True,
        }
        return protocol.reply(command.id, "connect", result)

    def _refresh(self, command: Command) -> str:
        claims = self._verify(command.params)
        if claims.user_id != self._user_id:
            raise Disconnect(CLOSE_INVALID_TOKEN)
        self.expires_at = claims.expires_at
        return protocol.reply(command.id, "refresh", {"expires": True, "ttl": self._ttl()})

    async def _subscribe(self, command: Command) -> str:
        run_id = _run_id(command.params)
        if run_id in self.subscriptions:
            raise ReplyError.of(ERROR_ALREADY_SUBSCRIBED)
        if len(self.subscriptions) >= self._config.max_subscriptions:
            raise ReplyError.of(ERROR_LIMIT_EXCEEDED)
        for _ in range(_SUBSCRIBE_RECHECKS):
            mark = self._hub.eviction_mark(run_id)
            allowed = await self._ask(self._access.can_subscribe(self._user_id, run_id))
            if not allowed:
                raise ReplyError.of(ERROR_PERMISSION_DENIED)
            if self._hub.eviction_mark(run_id) == mark:
                break
        else:
            raise ReplyError.of(ERROR_PERMISSION_DENIED)
        if self._closed or self._outbox.close_request is not None:
            return protocol.reply(command.id, "subscribe", {})
        self.subscriptions.add(run_id)
        self._hub.attach_channel(run_id, self)
        return protocol.reply(command.id, "subscribe", {})

    def _unsubscribe(self, command: Command) -> str:
        channel = command.params.get("channel")
        if not isinstance(channel, str) or not channel:
            raise Disconnect(CLOSE_BAD_REQUEST)
        run_id = protocol.run_of(channel)
        if run_id is not None and run_id in self.subscriptions:
            self.subscriptions.discard(run_id)
            self._hub.detach_channel(run_id, self)
        return protocol.reply(command.id, "unsubscribe", {})

    async def _history(self, command: Command) -> str:
        """§5.3. The history holds sandbox-stage signals, which only the owner may read (§7.12):
        a reader of a promoted public run gets the position and no publications."""
        params = command.params
        run_id = _run_id(params)
        if run_id not in self.subscriptions:
            raise ReplyError.of(ERROR_PERMISSION_DENIED)
        limit = params.get("limit", 0)
        reverse = params.get("reverse", False)
        if not _is_int(limit) or limit < 0 or not isinstance(reverse, bool):
            raise ReplyError.of(ERROR_BAD_REQUEST)
        since = _position(params.get("since"))
        if limit and not await self._owns(run_id):
            limit = 0
        try:
            page = self._hub.history(
                run_id, limit=min(limit, HISTORY_MAX_LIMIT), since=since, reverse=reverse
            )
        except StalePosition as exc:
            raise ReplyError.of(ERROR_UNRECOVERABLE_POSITION) from exc
        publications = [
            {"data": orjson.Fragment(p.data_json), "offset": p.offset} for p in page.publications
        ]
        result = {"publications": publications, "epoch": page.epoch, "offset": page.offset}
        return protocol.reply(command.id, "history", result)

    async def _call(self, command: Command) -> str:
        method = command.params.get("method")
        if method != LIVE_PARAMS_METHOD:
            raise ReplyError.of(ERROR_METHOD_NOT_FOUND)
        data = command.params.get("data")
        if not isinstance(data, dict):
            raise ReplyError(400, "the live.params data must be an object with runId and params")
        try:
            result = await self._rpc.update_params(self._user_id, data)
        except LiveParamsRpcError as exc:
            raise ReplyError(exc.code, exc.message) from exc
        except InvalidInput as exc:
            raise ReplyError(400, exc.message) from exc
        except NotFound as exc:
            raise ReplyError(404, exc.message) from exc
        except Conflict as exc:
            raise ReplyError(409, exc.message) from exc
        except Exception as exc:
            log.exception("the live.params RPC failed")
            raise ReplyError.of(ERROR_INTERNAL, temporary=True) from exc
        return protocol.reply(command.id, "rpc", {"data": result})

    async def _owns(self, run_id: str) -> bool:
        owned = self._owned.get(run_id)
        if owned is None:  # a run's owner never changes: ask once per connection
            owned = await self._ask(self._access.is_owner(self._user_id, run_id))
            self._owned[run_id] = owned
        return owned

    async def _ask(self, check: Any) -> bool:
        try:
            return bool(await check)
        except Exception as exc:
            log.exception("the live channel access check failed")
            raise ReplyError.of(ERROR_INTERNAL, temporary=True) from exc


def _run_id(params: dict[str, Any]) -> str:
    channel = params.get("channel")
    if not isinstance(channel, str) or not channel:
        raise Disconnect(CLOSE_BAD_REQUEST)
    run_id = protocol.run_of(channel)
    if run_id is None:
        raise ReplyError.of(ERROR_UNKNOWN_CHANNEL)
    return run_id


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _position(raw: object) -> tuple[int, str] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ReplyError.of(ERROR_BAD_REQUEST)
    offset = raw.get("offset", 0)
    epoch = raw.get("epoch", "")
    if not _is_int(offset) or offset < 0 or not isinstance(epoch, str):
        raise ReplyError.of(ERROR_BAD_REQUEST)
    return offset, epoch
