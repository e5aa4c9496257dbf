"""Cadence and gap discovery for an ingested dataset (wire-reference §4.12a).

A dataset has a fixed cadence when at least half of the intervals between consecutive rows fall
on one grid step (within a small jitter); otherwise it is ``rt``. Gaps are intervals longer than
one and a half steps; ``largestGapSteps`` counts the steps missing in the widest one (an interval
of three steps misses two rows). Works on a stream of chunks so ingest stays in bounded memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from backtestd.domain.datasets import RT_CADENCE

MICROS_PER_SECOND = 1_000_000
GRID: tuple[tuple[str, int], ...] = (
    ("1s", 1),
    ("5s", 5),
    ("15s", 15),
    ("1m", 60),
    ("5m", 300),
    ("15m", 900),
    ("30m", 1800),
    ("1h", 3600),
    ("4h", 14400),
    ("1d", 86400),
)
JITTER = 0.02
"""Fraction of a step an interval may deviate from it and still count as on the grid."""


@dataclass(frozen=True)
class CadenceReport:
    cadence: str
    gaps: int
    largest_gap_steps: int


class CadenceAccumulator:
    """Counts intervals per grid step and gap statistics per step, chunk by chunk."""

    def __init__(self) -> None:
        self._intervals = 0
        self._on_step = np.zeros(len(GRID), dtype=np.int64)
        self._gaps = np.zeros(len(GRID), dtype=np.int64)
        self._largest = np.zeros(len(GRID), dtype=np.int64)
        self._last: int | None = None

    def add(self, timestamps_us: npt.NDArray[np.int64]) -> None:
        """Feed the next chunk of strictly increasing epoch microseconds."""
        if timestamps_us.size == 0:
            return
        ts = timestamps_us.astype(np.int64, copy=False)
        if self._last is not None:
            ts = np.concatenate(([self._last], ts))
        self._last = int(ts[-1])
        diffs = np.diff(ts)
        if diffs.size == 0:
            return
        self._intervals += int(diffs.size)
        for i, (_, seconds) in enumerate(GRID):
            step = seconds * MICROS_PER_SECOND
            self._on_step[i] += int(np.count_nonzero(np.abs(diffs - step) <= step * JITTER))
            long = diffs[diffs > step * 1.5]
            if long.size:
                self._gaps[i] += int(long.size)
                missing = int(np.rint(long.max() / step)) - 1
                self._largest[i] = max(int(self._largest[i]), missing)

    def report(self) -> CadenceReport:
        if self._intervals > 0:
            for i, (label, _) in enumerate(GRID):
                if 2 * int(self._on_step[i]) >= self._intervals:
                    return CadenceReport(label, int(self._gaps[i]), int(self._largest[i]))
        return CadenceReport(RT_CADENCE, 0, 0)


def discover(timestamps_us: npt.NDArray[np.int64]) -> CadenceReport:
    """One-shot discovery over an in-memory series."""
    accumulator = CadenceAccumulator()
    accumulator.add(timestamps_us)
    return accumulator.report()
