"""The general request limit: per account (all keys and tokens of a user) and per address.

No sleeping: the buckets read an injected clock, advanced by hand.
"""

from __future__ import annotations

import pytest

from backtestd.domain.accounts import Principal
from backtestd.errors import LimitExceeded
from backtestd.services.rate_limit import RateLimiter
from backtestd.services.request_limits import ACCOUNT_REASON, ADDRESS_REASON, RequestLimits
from backtestd.settings import Settings


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _limits(clock: Clock, **settings: object) -> RequestLimits:
    return RequestLimits(Settings(**settings), RateLimiter(clock=clock))  # type: ignore[arg-type]


def _admitted(
    limits: RequestLimits, principal: Principal, count: int, clock: Clock, gap: float
) -> int:
    ok = 0
    for _ in range(count):
        try:
            limits.admit_principal(principal)
            ok += 1
        except LimitExceeded:
            pass
        clock.now += gap
    return ok


def test_the_default_free_budget_stops_600_requests_in_0_6_seconds_after_its_burst() -> None:
    clock = Clock()
    limits = _limits(clock)
    admitted = _admitted(limits, Principal("flooder", "free"), 600, clock, gap=0.001)
    # 300 in the burst, plus 5 a second refilled over the 0.6 s
    assert 300 <= admitted <= 303


def test_a_demanding_honest_free_user_is_never_refused_by_the_defaults() -> None:
    """Ten minutes of: an SDK loop polling a job every 0.5 s, a dashboard polling once a second,
    and every 2 minutes a sweep's 100 per-trial curves read back to back."""
    clock = Clock()
    limits = _limits(clock)
    user = Principal("honest", "free")
    step = 0.5
    for tick in range(int(600 / step)):
        limits.admit_principal(user)  # the SDK poll
        if tick % 2 == 0:
            limits.admit_principal(user)  # the dashboard
        if tick % 240 == 0:
            for _ in range(100):
                limits.admit_principal(user)  # curve reads
        clock.now += step


def test_every_token_and_key_of_one_account_share_one_budget() -> None:
    clock = Clock()
    limits = _limits(clock, tiers={"free": {"requests_per_minute": 10}})
    # Two tokens of one user (say from two keys) are the same principal identity: the sub.
    first, second = Principal("alice", "free"), Principal("alice", "free", scopes={})
    for _ in range(5):
        limits.admit_principal(first)
        limits.admit_principal(second)
    with pytest.raises(LimitExceeded):
        limits.admit_principal(first)
    limits.admit_principal(Principal("bob", "free"))  # another account is untouched


def test_the_budget_is_the_tiers_and_refills_continuously() -> None:
    clock = Clock()
    limits = _limits(
        clock, tiers={"free": {"requests_per_minute": 6}, "pro": {"requests_per_minute": 12}}
    )
    assert _admitted(limits, Principal("f", "free"), 20, clock, gap=0.0) == 6
    assert _admitted(limits, Principal("p", "pro"), 20, clock, gap=0.0) == 12
    clock.now += 9.9  # 6 a minute: one request every 10 s
    with pytest.raises(LimitExceeded):
        limits.admit_principal(Principal("f", "free"))
    clock.now += 0.2
    limits.admit_principal(Principal("f", "free"))


def test_the_account_refusal_names_the_account_the_number_and_when_to_retry() -> None:
    clock = Clock()
    limits = _limits(clock, tiers={"free": {"requests_per_minute": 2}})
    user = Principal("carol", "free")
    limits.admit_principal(user)
    limits.admit_principal(user)
    with pytest.raises(LimitExceeded) as refused:
        limits.admit_principal(user)
    assert refused.value.retry_after == 30
    assert refused.value.reason == ACCOUNT_REASON
    assert refused.value.retryable is True
    message = refused.value.message
    assert message.startswith("rate limit of 2 requests per minute reached for account 'carol'")
    assert "free tier" in message
    assert "retry in 30 s" in message
    assert "maxRequestsPerMinute" in message


def test_the_address_budget_counts_every_request_and_names_the_address() -> None:
    clock = Clock()
    limits = _limits(clock, requests_per_minute_per_address=3)
    for _ in range(3):
        limits.admit_address("10.0.0.7")
    with pytest.raises(LimitExceeded) as refused:
        limits.admit_address("10.0.0.7")
    assert refused.value.reason == ADDRESS_REASON
    assert refused.value.retry_after == 20
    assert refused.value.message.startswith(
        "rate limit of 3 requests per minute reached for client address 10.0.0.7"
    )
    assert "retry in 20 s" in refused.value.message
    limits.admit_address("10.0.0.8")  # another address is untouched
    clock.now += 20
    limits.admit_address("10.0.0.7")


def test_address_and_account_budgets_are_separate_buckets() -> None:
    clock = Clock()
    limits = _limits(
        clock, requests_per_minute_per_address=2, tiers={"free": {"requests_per_minute": 2}}
    )
    limits.admit_address("dave")  # an address that happens to look like a user id
    limits.admit_address("dave")
    limits.admit_principal(Principal("dave", "free"))
    limits.admit_principal(Principal("dave", "free"))


def test_an_address_budget_of_zero_means_unlimited() -> None:
    clock = Clock()
    limits = _limits(clock, requests_per_minute_per_address=0)
    for _ in range(10_000):
        limits.admit_address("127.0.0.1")
