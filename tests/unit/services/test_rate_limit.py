"""Token bucket: burst up to the per-minute budget, then refill over time."""

from __future__ import annotations

import pytest

from backtestd.errors import LimitExceeded
from backtestd.services.rate_limit import RateLimiter


def test_burst_then_refill_one_token_per_interval() -> None:
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    for _ in range(6):
        limiter.check("k", per_minute=6)
    with pytest.raises(LimitExceeded, match="6 token requests per minute"):
        limiter.check("k", per_minute=6)
    now[0] += 9.9  # 6/min = one token per 10 s
    with pytest.raises(LimitExceeded):
        limiter.check("k", per_minute=6)
    now[0] += 0.2
    limiter.check("k", per_minute=6)
    limiter.check("other", per_minute=6)  # keys are independent
