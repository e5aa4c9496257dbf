"""Market time for live runs: real time, or real time sped up for tests and demos.

Everything a live run decides by time (which second a feed may publish, when a parameter change
takes effect) asks one :class:`MarketClock` for "now" in epoch milliseconds, so a deployment
can make market time run faster than wall time (``BACKTESTD_LIVE_CLOCK_RATE``) without any other
part knowing. A sped-up clock starts at the wall time of its creation (its anchor) and then
advances ``rate`` market milliseconds per wall millisecond.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from backtestd.settings import Settings

MAX_WAIT_SLICE_S = 0.25
"""Longest single wait, in wall seconds: a stop request or a clock that is not the wall (tests)
is noticed within this."""


class MarketClock:
    """``now_ms()`` in market time: ``anchor_ms + (wall - anchor wall) * rate``.

    ``wall`` returns wall seconds (``time.time`` unless a test passes its own); ``anchor_ms``
    defaults to the wall time at creation, so a clock of rate 1 is the wall clock. ``now_ms``
    never goes backwards, even if the wall clock is stepped back.

    A sped-up clock anchored at a wall time still to come reads *earlier* than the wall until
    then, catching up ``rate - 1`` seconds per second: that replays the recent past at speed,
    whose complete hours can then be prepared and backtested (the paper-trading proof in
    ``tests/e2e/test_live_paper.py`` runs on such a clock).

    >>> wall = iter([100.0, 101.5]).__next__
    >>> clock = MarketClock(rate=20, wall=wall)
    >>> clock.now_ms()  # 1.5 wall seconds after the anchor at 100 s: 30 market seconds later
    130000
    """

    def __init__(
        self,
        rate: float = 1.0,
        *,
        anchor_ms: int | None = None,
        wall: Callable[[], float] = time.time,
        anchored_at_wall: bool = False,
    ) -> None:
        if not rate > 0:
            raise ValueError(f"a market clock's rate must be positive, got {rate}")
        self.rate = float(rate)
        self._wall = wall
        # ``anchored_at_wall``: market and wall time agreed at ``anchor_ms``, so every process
        # given the same anchor reads the same market time (not the moment of its own start).
        self._anchor_wall = anchor_ms / 1000 if anchored_at_wall and anchor_ms else wall()
        self.anchor_ms = int(self._anchor_wall * 1000) if anchor_ms is None else anchor_ms
        self._last = 0  # reads never go backwards (before the anchor too, see above)
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> MarketClock:
        """The deployment's clock (``BACKTESTD_LIVE_CLOCK_RATE``), anchored at
        ``BACKTESTD_LIVE_CLOCK_ANCHOR_MS`` (the API sets it for its workers when a sped-up
        clock has none: every process of a deployment must read the same market time)."""
        anchor = settings.live_clock_anchor_ms or None
        return cls(rate=settings.live_clock_rate, anchor_ms=anchor, anchored_at_wall=True)

    def now_ms(self) -> int:
        elapsed = self._wall() - self._anchor_wall
        now = self.anchor_ms + int(elapsed * 1000.0 * self.rate)
        with self._lock:
            if now < self._last:
                return self._last
            self._last = now
            return now

    def wall_seconds_until(self, market_ms: int) -> float:
        """Wall seconds until the clock reads ``market_ms`` (0 if it already has)."""
        return max(market_ms - self.now_ms(), 0) / 1000.0 / self.rate

    def wait_until(self, market_ms: int, stop: threading.Event) -> bool:
        """Block until the clock reads at least ``market_ms``; ``False`` if ``stop`` was set
        first (then at once, not at the end of the wait)."""
        while not stop.is_set():
            remaining = self.wall_seconds_until(market_ms)
            if remaining <= 0:
                return True
            stop.wait(min(remaining, MAX_WAIT_SLICE_S))
        return False
