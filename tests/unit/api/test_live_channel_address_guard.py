"""The stream URL's per-address limits on an injected clock: sockets per address, the bad-URL
sliding window and cool-down, and the bounded memory of addresses (spec §5.4)."""

from __future__ import annotations

from typing import Any

import pytest

from backtestd.api.live_channel import StreamConfig
from backtestd.api.live_channel.address_guard import StreamAddressGuard
from backtestd.errors import LimitExceeded


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def guard(clock: Clock, **config: Any) -> StreamAddressGuard:
    return StreamAddressGuard(StreamConfig(**config), clock=clock)


def test_the_11th_slot_of_one_address_is_refused_until_one_is_released() -> None:
    limits = guard(Clock())
    for _ in range(10):
        limits.admit("10.0.0.1")
    with pytest.raises(LimitExceeded) as refused:
        limits.admit("10.0.0.1")
    assert refused.value.reason == "STREAM_CONNECTIONS_PER_ADDRESS"
    assert refused.value.retry_after is None
    limits.admit("10.0.0.2")  # another address has its own share
    limits.release("10.0.0.1")
    limits.admit("10.0.0.1")
    for _ in range(10):
        limits.release("10.0.0.1")
    assert limits.open_connections("10.0.0.1") == 0


def test_more_than_20_bad_urls_in_the_window_cool_the_address_down_then_it_starts_afresh() -> None:
    clock = Clock()
    limits = guard(clock, bad_url_window=60.0, bad_url_cooldown=30.0)
    for _ in range(20):
        limits.bad_url("10.0.0.1")
        clock.now += 1
    with pytest.raises(LimitExceeded) as crossing:
        limits.bad_url("10.0.0.1")
    assert crossing.value.reason == "STREAM_BAD_URLS"
    assert crossing.value.retry_after == 30
    clock.now += 29.5
    with pytest.raises(LimitExceeded) as cooling:
        limits.admit("10.0.0.1")
    assert cooling.value.retry_after == 1
    limits.admit("10.0.0.2")
    clock.now += 0.5
    limits.admit("10.0.0.1")
    for _ in range(20):
        limits.bad_url("10.0.0.1")  # a clean slate: 20 more are allowed


def test_bad_urls_older_than_the_window_no_longer_count() -> None:
    clock = Clock()
    limits = guard(clock, bad_url_window=60.0)
    for _ in range(20):
        limits.bad_url("10.0.0.1")
    clock.now += 60.0
    for _ in range(20):
        limits.bad_url("10.0.0.1")
        clock.now += 1
    with pytest.raises(LimitExceeded):
        limits.bad_url("10.0.0.1")


def test_the_remembered_addresses_stay_bounded_dropping_expired_then_oldest() -> None:
    clock = Clock()
    limits = guard(clock, max_tracked_addresses=100, bad_url_window=60.0, bad_url_cooldown=60.0)
    for host in range(5000):
        limits.bad_url(f"10.0.{host // 256}.{host % 256}")
        assert limits.tracked_addresses <= 100
    clock.now += 61.0
    limits.bad_url("10.1.0.1")
    assert limits.tracked_addresses == 1  # the expired ones are gone
    for _ in range(20):
        limits.bad_url("10.1.0.2")
    with pytest.raises(LimitExceeded):
        limits.bad_url("10.1.0.2")
    for host in range(99):
        limits.bad_url(f"10.2.0.{host}")
    with pytest.raises(LimitExceeded):
        limits.admit("10.1.0.2")  # still remembered at the bound
    limits.bad_url("10.3.0.1")
    limits.bad_url("10.3.0.2")
    assert limits.tracked_addresses == 100
    limits.admit("10.1.0.2")  # evicted as the oldest: admitted again


def test_zero_turns_either_rule_off() -> None:
    limits = guard(Clock(), max_connections_per_address=0, max_bad_urls_per_address=0)
    for _ in range(50):
        limits.admit("10.0.0.1")
        limits.bad_url("10.0.0.1")
    assert limits.tracked_addresses == 0
