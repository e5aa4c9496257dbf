"""Centrifugo v6 JSON client protocol: codes, frame parsing and reply encoding.

Only what the live signal socket speaks (spec §5.1). A client text frame holds one or more
commands, one JSON object per line; the server may pack several replies into one frame the
same way. Commands carry a client-chosen ``id`` ≥ 1 and one method key; the empty command
``{}`` is the pong that answers a server ping. Replies echo the ``id``; pushes and pings have
none. Codes and messages are Centrifugo's, so SDKs react to them as they would against it
(``109`` → fetch a new token and retry; a close code in 3500–3999 → stop reconnecting).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

CHANNEL_PREFIX = "sig:"
PING_FRAME = "{}"


@dataclass(frozen=True)
class ErrorCode:
    """An error a reply carries; the connection stays open."""

    code: int
    message: str


ERROR_INTERNAL = ErrorCode(100, "internal server error")
ERROR_UNKNOWN_CHANNEL = ErrorCode(102, "unknown channel")
ERROR_PERMISSION_DENIED = ErrorCode(103, "permission denied")
ERROR_METHOD_NOT_FOUND = ErrorCode(104, "method not found")
ERROR_ALREADY_SUBSCRIBED = ErrorCode(105, "already subscribed")
ERROR_LIMIT_EXCEEDED = ErrorCode(106, "limit exceeded")
ERROR_BAD_REQUEST = ErrorCode(107, "bad request")
ERROR_NOT_AVAILABLE = ErrorCode(108, "not available")
ERROR_TOKEN_EXPIRED = ErrorCode(109, "token expired")
ERROR_TOO_MANY_REQUESTS = ErrorCode(111, "too many requests")
ERROR_UNRECOVERABLE_POSITION = ErrorCode(112, "unrecoverable position")


@dataclass(frozen=True)
class CloseCode:
    """A WebSocket close code and reason that ends the connection."""

    code: int
    reason: str


CLOSE_SHUTDOWN = CloseCode(3001, "shutdown")
CLOSE_SERVER_ERROR = CloseCode(3004, "internal server error")
CLOSE_EXPIRED = CloseCode(3005, "connection expired")
CLOSE_SLOW = CloseCode(3008, "slow")
CLOSE_NO_PONG = CloseCode(3012, "no pong")
CLOSE_INVALID_TOKEN = CloseCode(3500, "invalid token")
CLOSE_BAD_REQUEST = CloseCode(3501, "bad request")
CLOSE_STALE = CloseCode(3502, "stale")

UNSUBSCRIBE_SERVER = 2000
"""Code of the server ``unsubscribe`` push: below 2500, so SDKs do not resubscribe."""


class Disconnect(Exception):
    """Raised while handling a command when the connection must be closed."""

    def __init__(self, close: CloseCode) -> None:
        super().__init__(f"{close.code} {close.reason}")
        self.close = close


class ReplyError(Exception):
    """Raised while handling a command whose reply is an ``error`` object."""

    def __init__(self, code: int, message: str, *, temporary: bool = False) -> None:
        super().__init__(f"{code} {message}")
        self.code = code
        self.message = message
        # Tells SDKs the same command may succeed later (they retry a subscribe with backoff).
        self.temporary = temporary

    @classmethod
    def of(cls, error: ErrorCode, *, temporary: bool = False) -> ReplyError:
        return cls(error.code, error.message, temporary=temporary)


METHODS = frozenset(
    {
        "connect",
        "subscribe",
        "unsubscribe",
        "publish",
        "presence",
        "presence_stats",
        "history",
        "send",
        "rpc",
        "refresh",
        "sub_refresh",
    }
)


@dataclass(frozen=True)
class Command:
    """One parsed client command. ``method`` is ``None`` for the pong ``{}``."""

    id: int
    method: str | None
    params: dict[str, Any]


def parse_frame(data: str | bytes) -> list[Command]:
    """The commands of one client frame (one JSON object per non-empty line).

    Raises ``Disconnect(bad request)`` for anything that is not well-formed protocol: invalid
    JSON, a non-object, a method this protocol does not have, several methods in one command,
    a method without an ``id`` ≥ 1 (``send`` excepted: it has none), or a non-object body.
    """
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    commands: list[Command] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            raw = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise Disconnect(CLOSE_BAD_REQUEST) from exc
        commands.append(_command(raw))
    if not commands:
        raise Disconnect(CLOSE_BAD_REQUEST)
    return commands


def _command(raw: object) -> Command:
    if not isinstance(raw, dict):
        raise Disconnect(CLOSE_BAD_REQUEST)
    command_id = raw.get("id", 0)
    if not isinstance(command_id, int) or isinstance(command_id, bool) or command_id < 0:
        raise Disconnect(CLOSE_BAD_REQUEST)
    methods = [key for key in raw if key != "id"]
    if not methods:
        if command_id:
            raise Disconnect(CLOSE_BAD_REQUEST)
        return Command(id=0, method=None, params={})
    if len(methods) != 1 or methods[0] not in METHODS:
        raise Disconnect(CLOSE_BAD_REQUEST)
    method = methods[0]
    params = raw[method]
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise Disconnect(CLOSE_BAD_REQUEST)
    if command_id == 0 and method != "send":
        raise Disconnect(CLOSE_BAD_REQUEST)
    return Command(id=command_id, method=method, params=params)


def encode(message: dict[str, Any]) -> str:
    """One reply or push as a line of JSON (``orjson.Fragment`` values go in verbatim)."""
    return orjson.dumps(message).decode("utf-8")


def reply(command_id: int, method: str, result: dict[str, Any]) -> str:
    return encode({"id": command_id, method: result})


def error_reply(command_id: int, error: ReplyError) -> str:
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.temporary:
        body["temporary"] = True
    return encode({"id": command_id, "error": body})


def channel_of(run_id: str) -> str:
    return CHANNEL_PREFIX + run_id


def run_of(channel: object) -> str | None:
    """The run id a channel name designates, or ``None`` when it is not ``sig:<runId>``."""
    if not isinstance(channel, str) or not channel.startswith(CHANNEL_PREFIX):
        return None
    run_id = channel[len(CHANNEL_PREFIX) :]
    if not run_id or len(run_id) > 128 or any(c.isspace() for c in run_id):
        return None
    return run_id


def publication_push(channel: str, data_json: bytes, offset: int) -> str:
    """``{"push":{"channel":…,"pub":{"data":…,"offset":n}}}`` from pre-encoded data."""
    return encode(
        {
            "push": {
                "channel": channel,
                "pub": {"data": orjson.Fragment(data_json), "offset": offset},
            }
        }
    )


def unsubscribe_push(channel: str, code: int = UNSUBSCRIBE_SERVER) -> str:
    return encode(
        {
            "push": {
                "channel": channel,
                "unsubscribe": {"code": code, "reason": "server unsubscribe"},
            }
        }
    )
