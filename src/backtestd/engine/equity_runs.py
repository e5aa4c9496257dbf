"""The grid equity as runs: the grid index where each value starts, and the value.

The equity on the metrics grid is a step function: it changes only at fills and, while a
position is open, at marks. A 30-day run at ``1s`` has 2,592,000 grid instants but a flat
account changes only at its fills, so the kernel visits the changes, not the instants
(``kernel.equity_pass``). A trial keeps only what its metrics need from that pass (the
drawdown and the daily equity) and the account after each fill (:class:`EquityBook`); the
runs (:meth:`EquityBook.runs`) and the full grid (:meth:`EquityRuns.expand`) are built only
when a caller asks for them, and they are then the same float bits the per-instant loop gave.

The grid is arithmetic (``from + k * step`` while before ``to``, then ``to``), so a grid
index never needs the grid array: see :func:`backtestd.engine.mark_to_market.grid_timestamps`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from backtestd.engine.cadence import DAY_MS
from backtestd.engine.kernel import equity_pass
from backtestd.engine.mark_to_market import grid_timestamps

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

_NO_FLAGS = np.empty(0, dtype=np.int8)
"""``equity_pass``'s ``m_new``, which a pass that stores its runs does not read."""


def grid_length(from_ms: int, to_ms: int, step_ms: int) -> int:
    """How many instants :func:`grid_timestamps` gives (``to`` included).

    >>> grid_length(0, 150, 60), grid_length(0, 120, 60), grid_length(5, 5, 60)
    (4, 3, 1)
    """
    return (to_ms - from_ms + step_ms - 1) // step_ms + 1


@dataclass(frozen=True)
class EquityRuns:
    """Run-length encoded grid equity: ``value[k]`` holds from grid index ``start[k]`` up to
    ``start[k + 1]`` (exclusive; the last run up to the end of the grid).

    ``start[0]`` is 0 and the starts increase strictly, so every value is shown by at least
    one grid instant (a value replaced before the next instant is not a run). Adjacent runs
    may carry the same value.

    >>> runs = EquityRuns(np.array([0, 2, 3]), np.array([100.0, 90.0, 95.0]), 0, 240, 60)
    >>> runs.expand().tolist(), runs.timestamps().tolist()
    ([100.0, 100.0, 90.0, 95.0, 95.0], [0, 60, 120, 180, 240])
    """

    start: I64
    value: F64
    from_ms: int
    to_ms: int
    step_ms: int

    @property
    def n_points(self) -> int:
        """The number of grid instants."""
        return grid_length(self.from_ms, self.to_ms, self.step_ms)

    def timestamps(self) -> I64:
        """The grid instants."""
        return grid_timestamps(self.from_ms, self.to_ms, self.step_ms)

    def expand(self) -> F64:
        """The equity at every grid instant (``np.repeat`` of the runs)."""
        ends = np.empty(self.start.shape, dtype=np.int64)
        ends[:-1] = self.start[1:]
        ends[-1:] = self.n_points
        return np.repeat(self.value, ends - self.start)

    @classmethod
    def encode(cls, equity: F64, from_ms: int, to_ms: int, step_ms: int) -> EquityRuns:
        """The runs of a full-grid equity: a new run wherever the float bits change.

        >>> r = EquityRuns.encode(np.array([1.0, 1.0, 2.0, 2.0, 1.0]), 0, 4, 1)
        >>> r.start.tolist(), r.value.tolist()
        ([0, 2, 4], [1.0, 2.0, 1.0])
        """
        if equity.shape[0] != grid_length(from_ms, to_ms, step_ms):
            raise ValueError("the equity must have one value per grid instant")
        bits = np.ascontiguousarray(equity, dtype=np.float64).view(np.int64)
        start = np.concatenate(
            [np.zeros(1, dtype=np.int64), np.flatnonzero(bits[1:] != bits[:-1]) + 1]
        ).astype(np.int64)
        return cls(start, np.asarray(equity[start], dtype=np.float64), from_ms, to_ms, step_ms)


@dataclass(frozen=True)
class EquityBook:
    """What the grid equity of a run is made of: the account after each fill (``ts``, and
    ``[fill price, account value, signed units]`` rows), the run's marks, the initial funding
    and the final cash. ``m_ts``/``m_px`` are the shared marks of the range, not a copy."""

    ts: I64
    rows: F64
    m_ts: I64
    m_px: F64
    initial: float
    final: float
    from_ms: int
    to_ms: int
    step_ms: int

    def runs(self) -> EquityRuns:
        """The runs of the grid equity (the kernel's pass again, storing them this time)."""
        start, value, _, _, _ = equity_pass(
            self.from_ms, self.to_ms, self.step_ms, DAY_MS, self.ts, self.rows,
            self.ts.shape[0], self.m_ts, self.m_px, _NO_FLAGS, self.initial, self.final, True,
        )  # fmt: skip
        return EquityRuns(start, value, self.from_ms, self.to_ms, self.step_ms)
