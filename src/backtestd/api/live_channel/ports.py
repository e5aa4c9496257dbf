"""What the live channel needs from the rest of the service, as small protocols.

The application implements them with the real run records; tests implement them with a dict.
Every method is awaited on the event loop that serves the sockets, so an implementation doing
blocking I/O (the database) should hand it to a thread (``anyio.to_thread.run_sync``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class ChannelAccess(Protocol):
    """Who may be on ``sig:<runId>`` (spec §5.2)."""

    async def can_subscribe(self, user_id: str, run_id: str) -> bool:
        """True when the user owns the run, or the run is public, in stage ``LIVE`` and
        running. False for everything else, a run that does not exist included."""
        ...

    async def is_owner(self, user_id: str, run_id: str) -> bool:
        """True when the run exists and is the user's. Asked (once per connection and run)
        before ``history`` shows sandbox-stage signals, which are the owner's only (§7.12)."""
        ...


class LiveParamsRpcError(Exception):
    """The ``live.params`` RPC refused: ``code`` mirrors the REST status of
    ``PUT /live/{runId}/params`` (400 invalid, 404 no such run or not the caller's, 409 the
    run cannot take parameters now)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class LiveParamsRpc(Protocol):
    """The ``live.params`` RPC: the same rules and result as ``PUT /live/{runId}/params``."""

    async def update_params(self, user_id: str, data: dict[str, object]) -> dict[str, object]:
        """``data`` is the RPC payload as sent (``{"runId": …, "params": {…}}``, unchecked).
        Returns ``LiveParamsUpdateResult`` as wire JSON (``runId``, ``paramsVersion``,
        ``effectiveAtMs``). Raises ``LiveParamsRpcError``, or one of the domain errors
        ``InvalidInput`` (→ 400), ``NotFound`` (→ 404), ``Conflict`` (→ 409)."""
        ...


@runtime_checkable
class StreamAccess(Protocol):
    """The plain stream URL's secret (spec §5.4)."""

    async def resolve(self, secret: str) -> str | None:
        """The run a live stream URL secret opens, or ``None`` when the secret is unknown,
        rotated away or revoked, or the run is no longer wanted running (→ HTTP 404)."""
        ...
