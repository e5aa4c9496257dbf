"""Counts every ``/v1`` request against its client address before anything else runs.

A middleware rather than a dependency so that every request counts, whatever it turns out to
be: an unknown route, a wrong method, a 401 for a bad key or token, an oversized body (this
runs before the body cap reads it). Over the budget the answer is the 429 ``ResponseError`` with
``Retry-After`` (``services/request_limits.py``), and the route never runs. Paths outside the
prefix (the dashboard's page and static files) are not counted.

The address is the ASGI client, i.e. the TCP peer, or the ``X-Forwarded-For`` address when
uvicorn trusts the peer as a proxy (``FORWARDED_ALLOW_IPS``; docs/limits.md).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from backtestd.api.errors import domain_error_response
from backtestd.errors import LimitExceeded
from backtestd.services.request_limits import RequestLimits


class AddressLimitMiddleware:
    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self._app = app
        self._prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limits = self._limits(scope)
        if limits is not None:
            client = scope.get("client")
            try:
                limits.admit_address(client[0] if client else "unknown")
            except LimitExceeded as exc:
                await domain_error_response(exc)(scope, receive, send)
                return
        await self._app(scope, receive, send)

    def _limits(self, scope: Scope) -> RequestLimits | None:
        """The service that counts this request, or None when it is not counted."""
        if scope["type"] != "http":
            return None
        path: str = scope["path"]
        if path != self._prefix and not path.startswith(f"{self._prefix}/"):
            return None
        services = getattr(scope["app"].state, "services", None)
        return services.request_limits if services is not None else None
