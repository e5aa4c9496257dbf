"""Stored or generated hours read back as live updates: one row per instrument and second.

The same per-second rule serves the ``sim`` feed (its whole output) and the warm-up replay of a
recorded exchange feed, so an update replayed from history and one delivered live look alike:

* klines: every row (1-second bars), ``closeTs`` = open time + 999 ms as in prepared data;
* tickers: the last row of each second, with its own millisecond timestamp (a recorded hour has
  one row a second already; an imported trade archive has many).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from backtestd.domain.marketdata import CLOSE_TS, DataType, HourFrame, Instrument
from backtestd.marketdata.live.feed import LiveUpdate, value_columns

KLINE_CLOSE_OFFSET_MS = 999  # a 1 s bar closes at its open time + 999 ms (Binance convention)


@dataclass(frozen=True)
class SecondRows:
    """The rows of one hour frame a live feed publishes, one per second."""

    seconds: np.ndarray  # int64 epoch second of each row, ascending and unique
    ts: np.ndarray  # int64 epoch ms of each row
    values: list[tuple[float, ...]]  # in value_columns(kind) order

    @classmethod
    def of(cls, frame: HourFrame, kind: DataType) -> SecondRows:
        ts = frame.columns["ts"]
        seconds = ts // 1000
        if kind is DataType.TICKER and len(ts):
            rows = np.flatnonzero(np.append(seconds[1:] != seconds[:-1], True))
        else:
            rows = np.arange(len(ts))
        names = [name for name in value_columns(kind) if name != CLOSE_TS]
        columns = [frame.columns[name][rows].tolist() for name in names]
        values: list[tuple[float, ...]] = list(zip(*columns, strict=True))
        if kind is DataType.KLINE:
            close_ts = (ts[rows] + KLINE_CLOSE_OFFSET_MS).tolist()
            values = [(close, *rest) for close, rest in zip(close_ts, values, strict=True)]
        return cls(seconds[rows], ts[rows], values)

    def updates(
        self, instrument: Instrument, kind: DataType, first_second: int, end_second: int
    ) -> list[LiveUpdate]:
        """Updates of the seconds ``[first_second, end_second)``, oldest first."""
        lo, hi = np.searchsorted(self.seconds, [first_second, end_second])
        return [
            LiveUpdate(instrument, kind, int(self.ts[row]), self.values[row])
            for row in range(int(lo), int(hi))
        ]


def in_market_order(
    per_instrument: list[list[LiveUpdate]],
) -> list[LiveUpdate]:
    """Merge per-instrument lists (each oldest first) by time, ties in list order."""
    keyed = [(u.ts_ms, index, u) for index, updates in enumerate(per_instrument) for u in updates]
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [u for _, _, u in keyed]
