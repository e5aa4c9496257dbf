"""A per-key token bucket, in process memory.

Each API replica limits independently (documented in docs/configuration.md and docs/limits.md):
the limit is a guard against runaway clients, not a billing meter, so exactness across replicas
is not needed. One instance may hold buckets of several budgets (keys name their budget).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from backtestd.errors import LimitExceeded

MAX_KEYS = 10_000


class RateLimiter:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, last refill)

    def check(
        self,
        key: str,
        per_minute: int,
        what: str = "token requests",
        advice: str = "for this API key; retry in {wait} s and reuse tokens until they expire",
        reason: str | None = None,
    ) -> None:
        """Take one token for ``key`` or raise ``LimitExceeded`` saying when to retry.

        ``what`` names the counted requests and ``advice`` (with ``{wait}``) ends the message;
        ``reason`` is the error's stable token (default ``LIMIT_REACHED``).
        """
        now = self._clock()
        rate = per_minute / 60.0
        with self._lock:
            tokens, last = self._buckets.get(key, (float(per_minute), now))
            tokens = min(float(per_minute), tokens + (now - last) * rate)
            if tokens < 1.0:
                wait = max(1, math.ceil(round((1.0 - tokens) / rate, 6)))
                self._buckets[key] = (tokens, now)
                raise LimitExceeded(
                    f"rate limit of {per_minute} {what} per minute reached "
                    + advice.format(wait=wait),
                    retry_after=wait,
                    reason=reason,
                )
            self._buckets[key] = (tokens - 1.0, now)
            if len(self._buckets) > MAX_KEYS:
                self._forget_full(now)

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled completely: any bucket refills in 60 s, after which
        it equals a fresh one.

        Keys are client addresses for anonymous downloads, so the table must not grow without
        bound; the caller holds the lock.
        """
        idle = [k for k, (_, last) in self._buckets.items() if now - last >= 60.0]
        for k in idle:
            del self._buckets[k]
