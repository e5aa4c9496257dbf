"""A per-key token bucket, in process memory.

Each API replica limits independently (documented in docs/configuration.md): the limit is a
guard against runaway clients, not a billing meter, so exactness across replicas is not needed.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from backtestd.errors import LimitExceeded


class RateLimiter:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, last refill)

    def check(self, key: str, per_minute: int) -> None:
        """Take one token for ``key`` or raise ``LimitExceeded`` saying when to retry."""
        now = self._clock()
        rate = per_minute / 60.0
        with self._lock:
            tokens, last = self._buckets.get(key, (float(per_minute), now))
            tokens = min(float(per_minute), tokens + (now - last) * rate)
            if tokens < 1.0:
                wait = (1.0 - tokens) / rate
                self._buckets[key] = (tokens, now)
                raise LimitExceeded(
                    f"rate limit of {per_minute} token requests per minute reached for this "
                    f"API key; retry in {wait:.0f} s and reuse tokens until they expire",
                    reason="RATE_LIMITED",
                    retry_after=max(1, math.ceil(wait)),
                )
            self._buckets[key] = (tokens - 1.0, now)
