"""The plain stream URL's per-address limits (spec §5.4), as a pure state machine.

Two rules, both decided at the handshake, before the secret is looked up:

* **concurrent sockets per address** — at most ``max_connections_per_address`` stream sockets
  (open, or between the upgrade request and their close) from one client address; the next is
  refused ``429``. A socket's slot is taken synchronously on the event loop before the lookup
  and given back when it ends, whatever the outcome, so two handshakes racing cannot both take
  the last slot.
* **bad URLs** — an address that presents more than ``max_bad_urls_per_address`` unknown or
  retired secrets within a sliding ``bad_url_window`` seconds is refused ``429`` for every
  stream handshake, valid URL or not, for ``bad_url_cooldown`` seconds from the one that crossed
  the threshold (that one is already refused ``429``). Refused handshakes are not looked up, so
  they neither count as bad URLs nor extend the cool-down; once it has passed the address
  starts from a clean slate. This caps secret guessing at about ``max_bad_urls_per_address``
  guesses per window and cool-down per address.

The address is whatever the caller passes: the endpoint passes the ASGI client host, i.e. the
TCP peer, or the ``X-Forwarded-For`` address when uvicorn trusts the peer as a proxy
(``FORWARDED_ALLOW_IPS``), the same rule as the ``/v1`` per-address budget (docs/limits.md).

Memory is bounded whatever the number of addresses:

* the open-socket counts hold an entry only while that address has a socket, so at most one
  entry per socket the process holds;
* the bad-URL records hold at most ``max_tracked_addresses`` addresses, kept in the order they
  last presented a bad URL. Records whose window and cool-down have both passed are dropped
  from the oldest end on every call; past the bound the oldest record is evicted even if still
  live (an evicted address that was cooling down is admitted again: under a flood from that
  many addresses, per-address blocking no longer protects anything anyway). Each record keeps
  at most ``max_bad_urls_per_address + 1`` timestamps.

Not thread-safe: call it on the event loop that serves the sockets. Each API replica limits on
its own.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from backtestd.api.live_channel.config import StreamConfig
from backtestd.errors import LimitExceeded

CONNECTIONS_REASON = "STREAM_CONNECTIONS_PER_ADDRESS"
BAD_URLS_REASON = "STREAM_BAD_URLS"


@dataclass
class _BadUrls:
    seen: deque[float] = field(default_factory=deque)
    blocked_until: float | None = None

    def expires_at(self, window: float) -> float:
        last = self.seen[-1] + window if self.seen else 0.0
        return max(last, self.blocked_until or 0.0)


class StreamAddressGuard:
    def __init__(
        self, config: StreamConfig | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._config = config or StreamConfig()
        self._clock = clock
        self._open: dict[str, int] = {}
        self._bad: OrderedDict[str, _BadUrls] = OrderedDict()

    def admit(self, address: str) -> None:
        """Take one socket slot for ``address``, or raise ``LimitExceeded`` (a ``429``) when it
        is cooling down after bad URLs or already has its share of sockets. Every successful
        ``admit`` must be matched by one ``release``."""
        now = self._clock()
        self._expire(now)
        record = self._bad.get(address)
        if record is not None and record.blocked_until is not None:
            if record.blocked_until > now:
                raise self._cooling_down(address, record.blocked_until - now)
            del self._bad[address]  # cooled down: a clean slate
        limit = self._config.max_connections_per_address
        if limit > 0 and self._open.get(address, 0) >= limit:
            raise LimitExceeded(
                f"too many stream connections from client address {address}: at most {limit} "
                "at once per address (all stream URLs together); close one before opening "
                "another",
                reason=CONNECTIONS_REASON,
                retry_after=None,
            )
        self._open[address] = self._open.get(address, 0) + 1

    def release(self, address: str) -> None:
        """Give back a slot taken by ``admit``."""
        left = self._open.get(address, 0) - 1
        if left > 0:
            self._open[address] = left
        else:
            self._open.pop(address, None)

    def bad_url(self, address: str) -> None:
        """Count one unknown or retired secret from ``address``; raise ``LimitExceeded`` when
        that makes more than allowed within the window (the cool-down starts now)."""
        limit = self._config.max_bad_urls_per_address
        if limit <= 0:
            return
        now = self._clock()
        self._expire(now)
        record = self._bad.pop(address, None)
        if record is not None and record.blocked_until is not None:
            if record.blocked_until > now:  # blocked while this one was being looked up
                self._bad[address] = record
                raise self._cooling_down(address, record.blocked_until - now)
            record = None  # cooled down: a clean slate
        record = record or _BadUrls()
        self._bad[address] = record  # the most recently touched at the end
        window = self._config.bad_url_window
        while record.seen and record.seen[0] <= now - window:
            record.seen.popleft()
        record.seen.append(now)
        if len(record.seen) > limit:
            record.seen.clear()
            record.blocked_until = now + self._config.bad_url_cooldown
            self._bound()
            raise self._cooling_down(address, self._config.bad_url_cooldown)
        self._bound()

    def open_connections(self, address: str) -> int:
        return self._open.get(address, 0)

    @property
    def tracked_addresses(self) -> int:
        """Addresses with a bad-URL record (at most ``max_tracked_addresses``)."""
        return len(self._bad)

    def _cooling_down(self, address: str, remaining: float) -> LimitExceeded:
        config = self._config
        wait = max(1, math.ceil(remaining))
        return LimitExceeded(
            f"too many unknown stream URLs from client address {address}: more than "
            f"{config.max_bad_urls_per_address} within {config.bad_url_window:g} s; every "
            f"stream URL is refused from this address for {config.bad_url_cooldown:g} s after "
            f"the last one; retry in {wait} s with the URL shown by GET /v1/strategy/{{id}}/live "
            "(it changes when the stream is rotated)",
            reason=BAD_URLS_REASON,
            retry_after=wait,
        )

    def _expire(self, now: float) -> None:
        """Drop the records at the oldest end whose window and cool-down have passed (one
        further in may outlive its turn until it reaches the end or is looked up)."""
        window = self._config.bad_url_window
        while self._bad:
            address, record = next(iter(self._bad.items()))
            if record.expires_at(window) > now:
                return
            del self._bad[address]

    def _bound(self) -> None:
        while len(self._bad) > max(1, self._config.max_tracked_addresses):
            self._bad.popitem(last=False)
