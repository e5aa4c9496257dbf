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


def test_refusal_carries_retry_after_and_the_callers_wording() -> None:
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    limiter.check("download:10.0.0.1", per_minute=2, what="downloads", advice="for {wait} s")
    limiter.check("download:10.0.0.1", per_minute=2, what="downloads", advice="for {wait} s")
    with pytest.raises(LimitExceeded) as refused:
        limiter.check("download:10.0.0.1", per_minute=2, what="downloads", advice="for {wait} s")
    assert refused.value.retry_after == 30  # 2/min = one token per 30 s
    assert refused.value.message == "rate limit of 2 downloads per minute reached for 30 s"
    now[0] += 10
    with pytest.raises(LimitExceeded) as later:
        limiter.check("download:10.0.0.1", per_minute=2)
    assert later.value.retry_after == 20


def test_idle_buckets_are_forgotten_so_many_addresses_do_not_grow_memory() -> None:
    from backtestd.services import rate_limit

    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    for i in range(rate_limit.MAX_KEYS):
        limiter.check(f"addr-{i}", per_minute=10)
    now[0] += 61  # every bucket has refilled: they equal fresh ones
    limiter.check("newcomer", per_minute=10)
    assert len(limiter._buckets) == 1
