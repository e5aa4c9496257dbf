"""Cadence and gap discovery for an ingested dataset.

A dataset has a fixed cadence when at least half of the intervals between consecutive rows fall
on one grid step (within a small jitter); otherwise it is ``rt``. Gaps are intervals longer than
one and a half steps; ``largestGapSteps`` counts the steps missing in the widest one (an interval
of three steps misses two rows). Works on a stream of chunks so ingest stays in bounded memory.

Each chunk's intervals are counted once into bins between the grid's boundaries (the edges of
each step's jitter window and of its gap threshold), not once per grid step: a chunk whose
intervals all fall in one bin (a regular series) costs a min and a max, any other chunk one
``searchsorted``. The per-step counts are sums of bins, equal to the float comparisons
``abs(d - step) <= step * JITTER`` and ``d > step * 1.5`` on every int64 interval ``d``
(tested against them).
"""

from __future__ import annotations

import math
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
GAP_STEPS = 1.5
"""An interval longer than this many steps is a gap."""

_STEPS = [seconds * MICROS_PER_SECOND for _, seconds in GRID]
# Integer forms of the float bounds (exact: intervals near them are far below 2**53).
_ON_LOW = [step - math.floor(step * JITTER) for step in _STEPS]  # on the step: low <= d
_ON_END = [step + math.floor(step * JITTER) + 1 for step in _STEPS]  # ... and d < end
_GAP_FROM = [math.floor(step * GAP_STEPS) + 1 for step in _STEPS]  # a gap: d >= from
_EDGES = np.unique(np.array(_ON_LOW + _ON_END + _GAP_FROM, dtype=np.int64))
_ON_LOW_BIN, _ON_END_BIN, _GAP_FROM_BIN = (
    np.searchsorted(_EDGES, np.array(bounds, dtype=np.int64))
    for bounds in (_ON_LOW, _ON_END, _GAP_FROM)
)


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
        self._longest = np.zeros(len(GRID), dtype=np.int64)
        self._last: int | None = None

    def add(self, timestamps_us: npt.NDArray[np.int64]) -> None:
        """Feed the next chunk of strictly increasing epoch microseconds."""
        if timestamps_us.size == 0:
            return
        ts = timestamps_us.astype(np.int64, copy=False)
        if self._last is not None:
            diffs = ts - np.concatenate(([self._last], ts[:-1]))
        else:
            diffs = np.diff(ts)
        self.add_intervals(diffs, int(ts[-1]))

    def add_intervals(self, diffs: npt.NDArray[np.int64], last: int) -> None:
        """Feed the intervals of the next chunk (from the previous chunk's last row on) and
        the chunk's last timestamp: what :meth:`add` computes, for a caller that has them."""
        self._last = last
        if diffs.size == 0:
            return
        self._intervals += int(diffs.size)
        # counts[j]: intervals d with _EDGES[j - 1] <= d < _EDGES[j] (bin 0 below every edge)
        low, high = int(diffs.min()), int(diffs.max())
        low_bin, high_bin = np.searchsorted(_EDGES, [low, high], side="right")
        if low_bin == high_bin:
            counts = np.zeros(_EDGES.size + 1, dtype=np.int64)
            counts[low_bin] = diffs.size
        else:
            bins = np.searchsorted(_EDGES, diffs, side="right")
            counts = np.bincount(bins, minlength=_EDGES.size + 1)
        at_least = np.cumsum(counts[::-1])[::-1]  # at_least[j]: intervals in bin j or above
        at_least = np.append(at_least, 0)
        self._on_step += at_least[_ON_LOW_BIN + 1] - at_least[_ON_END_BIN + 1]
        gaps = at_least[_GAP_FROM_BIN + 1]
        self._gaps += gaps
        longest = np.where(gaps > 0, high, 0)
        np.maximum(self._longest, longest, out=self._longest)

    def _largest(self, i: int) -> int:
        """Steps missing in the widest gap on grid step ``i`` (0 without a gap)."""
        if self._gaps[i] == 0:
            return 0
        return int(np.rint(self._longest[i] / _STEPS[i])) - 1

    def report(self) -> CadenceReport:
        if self._intervals > 0:
            for i, (label, _) in enumerate(GRID):
                if 2 * int(self._on_step[i]) >= self._intervals:
                    return CadenceReport(label, int(self._gaps[i]), self._largest(i))
        return CadenceReport(RT_CADENCE, 0, 0)


def discover(timestamps_us: npt.NDArray[np.int64]) -> CadenceReport:
    """One-shot discovery over an in-memory series."""
    accumulator = CadenceAccumulator()
    accumulator.add(timestamps_us)
    return accumulator.report()
