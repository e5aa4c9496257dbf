"""Equity marked to market on a regular time grid.

Between two fills the account is ``cash + units * price``, where ``units`` is signed
(negative for a short). So the simulator only records the account after each fill, and the
equity at any instant needs two look-ups: the last fill before it, and the last observed price
before it. This keeps the per-point work vectorised over millions of marks. A Python loop over
marks would be far too slow.

The equity at grid instant ``t`` is the account after every event with a timestamp strictly
before ``t``. So the first point, at the run's ``from``, is always the initial funding. The
last point is at ``to``. The simulator sets it to the cash after closing a position still open
at the end, because that closing belongs to the end of the run and not to an earlier instant.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

_NO_TIME = np.iinfo(np.int64).min


@dataclass
class BookHistory:
    """The account after each fill, in fill order. The fill price is also an observed price."""

    ts: list[int] = field(default_factory=list)
    price: list[float] = field(default_factory=list)
    cash: list[float] = field(default_factory=list)
    units: list[float] = field(default_factory=list)

    def record(self, ts: int, price: float, cash: float, units: float) -> None:
        """Append the account (``cash`` in quote, signed base ``units``) after a fill."""
        self.ts.append(ts)
        self.price.append(price)
        self.cash.append(cash)
        self.units.append(units)

    def last_fill(self) -> tuple[int, float]:
        """Timestamp and price of the latest fill (there must be one)."""
        return self.ts[-1], self.price[-1]


def grid_timestamps(from_ms: int, to_ms: int, step_ms: int) -> I64:
    """``from, from + step, ...`` while before ``to``, then ``to`` itself.

    >>> grid_timestamps(0, 150, 60).tolist()
    [0, 60, 120, 150]
    >>> grid_timestamps(0, 120, 60).tolist()
    [0, 60, 120]
    """
    count = (to_ms - from_ms + step_ms - 1) // step_ms
    steps = np.arange(count, dtype=np.int64) * np.int64(step_ms) + np.int64(from_ms)
    return np.append(steps, np.int64(to_ms))


def last_price_before(
    at: I64, marks_ts: I64, marks_px: F64, fills_ts: I64, fills_px: F64
) -> tuple[F64, npt.NDArray[np.bool_]]:
    """The latest observed price strictly before each instant in ``at``.

    An observation is a mark or a fill. A fill counts as later than a mark of the same
    millisecond. Returns the prices and a mask that is false where nothing was observed yet
    (those prices are 0.0).

    >>> px, seen = last_price_before(
    ...     np.array([5, 11, 30]), np.array([10, 20]), np.array([1.0, 2.0]),
    ...     np.array([20]), np.array([2.5]),
    ... )
    >>> px.tolist(), seen.tolist()
    ([0.0, 1.0, 2.5], [False, True, True])
    """
    im = np.searchsorted(marks_ts, at, side="left") - 1
    jf = np.searchsorted(fills_ts, at, side="left") - 1
    has_mark = im >= 0
    has_fill = jf >= 0
    mark_t = np.where(has_mark, marks_ts[np.maximum(im, 0)] if marks_ts.size else 0, _NO_TIME)
    fill_t = np.where(has_fill, fills_ts[np.maximum(jf, 0)] if fills_ts.size else 0, _NO_TIME)
    use_fill = has_fill & (fill_t >= mark_t)
    mark_px = marks_px[np.maximum(im, 0)] if marks_px.size else np.zeros(at.shape)
    fill_px = fills_px[np.maximum(jf, 0)] if fills_px.size else np.zeros(at.shape)
    seen = has_mark | has_fill
    price = np.where(use_fill, fill_px, np.where(has_mark, mark_px, 0.0))
    return price.astype(np.float64), seen


def equity_on_grid(
    grid: I64, book: BookHistory, marks_ts: I64, marks_px: F64, initial_cash: float
) -> F64:
    """Equity at each grid instant, from the account after each fill and the mark prices.

    Before the first fill the account is ``initial_cash`` with nothing held.

    >>> book = BookHistory()
    >>> book.record(10, 2.0, 0.0, 50.0)   # bought 50 units at 2.0 with all 100 cash
    >>> book.record(70, 3.0, 150.0, 0.0)  # sold them at 3.0
    >>> equity_on_grid(
    ...     np.array([0, 60, 120]), book, np.array([0, 30]), np.array([2.0, 2.4]), 100.0
    ... ).tolist()
    [100.0, 120.0, 150.0]
    """
    fills_ts = np.asarray(book.ts, dtype=np.int64)
    if fills_ts.size == 0:
        return np.full(grid.shape, initial_cash, dtype=np.float64)
    fills_px = np.asarray(book.price, dtype=np.float64)
    cash = np.asarray(book.cash, dtype=np.float64)
    units = np.asarray(book.units, dtype=np.float64)
    state = np.searchsorted(fills_ts, grid, side="left") - 1
    price, _ = last_price_before(grid, marks_ts, marks_px, fills_ts, fills_px)
    at = np.maximum(state, 0)
    held = np.where(state >= 0, units[at], 0.0)
    base = np.where(state >= 0, cash[at], initial_cash)
    value = np.where(held == 0.0, base, base + held * price)
    return value.astype(np.float64)
