"""The market clock: real time by default, sped up by BACKTESTD_LIVE_CLOCK_RATE."""

from __future__ import annotations

import threading
import time

import pytest

from backtestd.errors import ConfigurationError
from backtestd.marketdata.live.clock import MarketClock
from backtestd.settings import load_settings


class ManualWall:
    """Wall seconds that move only when the test says so."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def test_default_clock_reads_the_wall_clock() -> None:
    before = int(time.time() * 1000)
    now = MarketClock().now_ms()
    after = int(time.time() * 1000)
    assert before - 1 <= now <= after + 1


def test_rate_runs_market_time_faster_than_wall_time_from_the_anchor() -> None:
    wall = ManualWall(1_000.0)
    clock = MarketClock(rate=20, wall=wall)
    assert clock.now_ms() == 1_000_000  # anchored at the wall time of its creation
    wall.now += 1.5
    assert clock.now_ms() == 1_030_000  # 1.5 wall seconds = 30 market seconds
    assert clock.wall_seconds_until(1_050_000) == pytest.approx(1.0)


def test_clock_never_goes_backwards_when_the_wall_clock_is_stepped_back() -> None:
    wall = ManualWall(500.0)
    clock = MarketClock(wall=wall)
    wall.now += 2
    assert clock.now_ms() == 502_000
    wall.now -= 1
    assert clock.now_ms() == 502_000


def test_sped_up_clock_waits_a_rate_th_of_the_market_time_in_wall_time() -> None:
    clock = MarketClock(rate=20)
    target = clock.now_ms() + 4_000  # 4 market seconds = 0.2 wall seconds
    started = time.monotonic()
    assert clock.wait_until(target, threading.Event())
    assert 0.15 <= time.monotonic() - started < 1.0
    assert clock.now_ms() >= target


def test_wait_returns_false_at_once_when_stopped() -> None:
    stop = threading.Event()
    stop.set()
    started = time.monotonic()
    assert not MarketClock().wait_until(MarketClock().now_ms() + 60_000, stop)
    assert time.monotonic() - started < 0.1


def test_live_clock_rate_setting_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert load_settings().live_clock_rate == 1.0
    monkeypatch.setenv("BACKTESTD_LIVE_CLOCK_RATE", "20")
    settings = load_settings()
    assert settings.live_clock_rate == 20.0
    assert MarketClock.from_settings(settings).rate == 20.0


@pytest.mark.parametrize("value", ["0", "-1", "fast"])
def test_a_clock_rate_that_is_not_a_positive_number_is_refused(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("BACKTESTD_LIVE_CLOCK_RATE", value)
    with pytest.raises(ConfigurationError, match="live_clock_rate"):
        load_settings()


def test_binance_feed_url_must_be_a_websocket_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACKTESTD_LIVE_BINANCE_URL", "https://stream.binance.com")
    with pytest.raises(ConfigurationError, match="live_binance_url"):
        load_settings()


def test_an_anchor_still_to_come_runs_market_time_behind_the_wall_until_then() -> None:
    """Market and wall time agree at the anchor: before it, a sped-up clock reads the past,
    catching up ``rate - 1`` seconds per wall second (what the paper-trading proof uses)."""
    anchor = 1_767_225_600_000
    wall = ManualWall(anchor / 1000 - 100)
    clock = MarketClock(rate=30, anchor_ms=anchor, wall=wall, anchored_at_wall=True)
    assert clock.now_ms() == anchor - 100_000 * 30  # 100 s before the anchor: 3000 s back
    wall.now += 10.0
    assert clock.now_ms() == anchor - 90_000 * 30
    wall.now = anchor / 1000
    assert clock.now_ms() == anchor  # they agree at the anchor
    wall.now -= 50.0  # a wall stepped back: market time never goes backwards
    assert clock.now_ms() == anchor
