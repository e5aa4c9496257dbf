"""Pauses between the polls of a test that waits for a job, a verdict or an ingest to finish.

Most of what the suite waits for ends within a second or two, so a fixed pause overshoots the end
by half a pause on average, hundreds of times per run. Short pauses at first, growing to
``LONGEST``, find a quick job done soon after it is, and poll a slow one no more often than a
fixed ``LONGEST`` pause would.
"""

from __future__ import annotations

import time

FIRST = 0.05
LONGEST = 0.3
GROWTH = 1.5


class Pauses:
    """One wait's pauses: ``FIRST`` seconds, then each ``GROWTH`` times the last, up to
    ``longest``. Make one per wait (it remembers how long the wait has gone on)."""

    def __init__(self, longest: float = LONGEST) -> None:
        self._longest = longest
        self._next = min(FIRST, longest)

    def sleep(self) -> None:
        time.sleep(self._next)
        self._next = min(self._next * GROWTH, self._longest)
