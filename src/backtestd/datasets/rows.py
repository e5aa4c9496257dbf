"""Row checks shared by every upload format, applied chunk by chunk in file order.

Timestamps must rise strictly (equal timestamps would make the engine's bar and tick order
ambiguous) and every number must be present and finite. The checker also accumulates what the
version record reports (rows, range, cadence, gaps), so one pass over the file does both.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from backtestd.datasets.cadence import CadenceAccumulator, CadenceReport
from backtestd.datasets.timestamps import row_label

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


class RowError(ValueError):
    """A row breaks the upload rules; the message names the row and the column."""


def micros_to_datetime(micros: int) -> datetime:
    return datetime.fromtimestamp(micros // 1_000_000, tz=UTC).replace(
        microsecond=micros % 1_000_000
    )


def iso_micros(micros: int) -> str:
    text = micros_to_datetime(micros).isoformat()
    return text.replace("+00:00", "Z")


PRICE_COLUMNS = frozenset({"open", "high", "low", "close", "bid", "ask"})
"""Columns that hold a price: positive. Every other value column (volumes, sizes) is at least 0."""
FUTURE_SLACK_US = 86_400_000_000
"""A row may lie at most a day ahead of the clock (an exchange's clock, a time zone slip)."""


def too_many_rows(rows: int, max_rows: int) -> str:
    return (
        f"the file holds {rows:,} rows or more, over this account's maxDatasetRows of "
        f"{max_rows:,} (see GET /v1/account); upload a shorter range or a coarser cadence"
    )


class RowChecker:
    def __init__(self, latest_us: int | None = None, max_rows: int | None = None) -> None:
        """``latest_us``: the latest timestamp accepted (a day after now unless given);
        ``max_rows``: the most rows a version may hold (no bound when None)."""
        now_us = int(datetime.now(UTC).timestamp() * 1_000_000)
        self.latest_us = now_us + FUTURE_SLACK_US if latest_us is None else latest_us
        self.max_rows = max_rows
        self.rows = 0
        self.first_us: int | None = None
        self.last_us: int | None = None
        self._cadence = CadenceAccumulator()

    def check(self, ts_us: I64, values: Mapping[str, F64]) -> None:
        """Check the next chunk (``ts_us`` and the value columns of the same length)."""
        if ts_us.size == 0:
            return
        if self.max_rows is not None and self.rows + int(ts_us.size) > self.max_rows:
            raise RowError(too_many_rows(self.rows + int(ts_us.size), self.max_rows))
        intervals = self._check_order(ts_us)
        for name, column in values.items():
            finite = np.isfinite(column)
            if not bool(finite.all()):
                index = int(np.flatnonzero(~finite)[0])
                value = float(column[index])  # a plain float prints as inf/nan, not np.float64
                raise RowError(
                    f"{row_label(self.rows + index + 1)}: column {name!r} is {value!r}; "
                    "every value must be a finite number"
                )
            self._check_sign(name, column)
        self._check_span(ts_us)
        self._cadence.add_intervals(intervals, int(ts_us[-1]))
        if self.first_us is None:
            self.first_us = int(ts_us[0])
        self.last_us = int(ts_us[-1])
        self.rows += int(ts_us.size)

    def _check_sign(self, name: str, column: F64) -> None:
        """Prices are positive, volumes and sizes not negative: a zero price would divide by
        zero in every return the engine computes."""
        price = name in PRICE_COLUMNS
        wrong = column <= 0 if price else column < 0
        if not bool(wrong.any()):
            return
        index = int(np.flatnonzero(wrong)[0])
        rule = "prices must be positive" if price else "volumes and sizes cannot be negative"
        raise RowError(
            f"{row_label(self.rows + index + 1)}: column {name!r} is {float(column[index])!r}; "
            f"{rule}"
        )

    def _check_span(self, ts_us: I64) -> None:
        """Timestamps from 1970 (epoch 0) to a day ahead of the clock (the chunk rises)."""
        if int(ts_us[0]) < 0:
            raise RowError(
                f"{row_label(self.rows + 1)}: timestamp {int(ts_us[0])} µs is before 1970; "
                "timestamps must be epoch times from 1970 on"
            )
        ahead = np.flatnonzero(ts_us > self.latest_us)
        if ahead.size:
            index = int(ahead[0])
            raise RowError(
                f"{row_label(self.rows + index + 1)}: timestamp "
                f"{iso_micros(min(int(ts_us[index]), 253_402_300_799_000_000))} is in the "
                f"future (the latest accepted is {iso_micros(self.latest_us)}); check the "
                "timestamp unit (seconds, milliseconds or microseconds)"
            )

    def _check_order(self, ts_us: I64) -> I64:
        """The intervals from the previous row (none before the first row), all positive."""
        if self.last_us is None:
            steps = np.diff(ts_us)
            offset = 1
        else:
            steps = np.empty_like(ts_us)
            steps[0] = ts_us[0] - self.last_us
            np.subtract(ts_us[1:], ts_us[:-1], out=steps[1:])
            offset = 0
        if steps.size == 0 or int(steps.min()) > 0:
            return steps
        bad = np.flatnonzero(steps <= 0)
        if bad.size:
            index = int(bad[0]) + offset
            raise RowError(
                f"{row_label(self.rows + index + 1)}: timestamp {iso_micros(int(ts_us[index]))} "
                "is not after the previous row; rows must be sorted by time with no duplicates"
            )
        return steps

    def cadence(self) -> CadenceReport:
        return self._cadence.report()
