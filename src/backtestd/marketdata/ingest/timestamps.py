"""Normalise archive timestamps to epoch milliseconds, whatever unit the file was written in.

Binance switched its spot archive from milliseconds to microseconds on 2025-01-01, and
files on either side of that date carry no marker. The magnitudes cannot be confused for
any plausible date (10**14 ms is the year 5138, 10**14 µs is 1973), so the unit is read
from the values. A file mixing both is corrupt rather than ambiguous, and is refused.
"""

from __future__ import annotations

import numpy as np

from backtestd.marketdata.ingest.errors import RowError

MICROS_FROM = 10**14  # values at or above this are microseconds
_MICROS_UNTIL = 10**17  # nanoseconds (or garbage) from here on; not a unit we accept


def epoch_ms(raw: np.ndarray) -> np.ndarray:
    """int64 epoch ms from int64 epoch ms or µs; µs are floored, dropping sub-ms precision."""
    raw = np.asarray(raw, dtype=np.int64)
    if raw.size == 0:
        return raw
    out_of_range = (raw < 0) | (raw >= _MICROS_UNTIL)
    if out_of_range.any():
        row = int(np.argmax(out_of_range))
        raise RowError(row, f"timestamp {int(raw[row])} is not epoch milliseconds or microseconds")
    micros = raw >= MICROS_FROM
    mixed = micros != micros[0]
    if mixed.any():
        row = int(np.argmax(mixed))
        units = ("microseconds", "milliseconds") if micros[0] else ("milliseconds", "microseconds")
        raise RowError(
            row, f"timestamp {int(raw[row])} is in {units[1]} but the file starts in {units[0]}"
        )
    return raw // 1000 if micros[0] else raw
