"""Pure kernels behind ``POST /backtest/{exchange}/{type}/prepare``: bounds, bars, columns.

A prepare turns stored hours into the column arrays the engine host memory-maps
(``RUN_COLUMNS``). The job runner does the I/O; everything here is a plain function over
numpy arrays so it can be tested exhaustively and reused by sweeps. Cadence and coverage rules
live in the sibling modules :mod:`backtestd.engine.cadence` and
:mod:`backtestd.engine.coverage` and are re-exported here so callers have one import.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from backtestd.domain.marketdata import (
    CLOSE_TS,
    COLUMNS_BY_KIND,
    RUN_COLUMNS,
    DataKind,
    DataType,
    HourFrame,
    column_dtype,
)
from backtestd.engine.cadence import (
    CADENCE_MS,
    FUNDING_CADENCES,
    KLINE_CADENCES,
    TICKER_CADENCES,
    accepted_cadences,
    resolve_cadence,
)
from backtestd.engine.coverage import Coverage, coverage_of

__all__ = [
    "CADENCE_MS",
    "FUNDING_CADENCES",
    "KLINE_CADENCES",
    "TICKER_CADENCES",
    "Coverage",
    "accepted_cadences",
    "aggregate_klines",
    "assemble",
    "coverage_of",
    "parse_range_bound",
    "resolve_cadence",
]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

_DATE_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?"
    r"(?:Z|[+-][0-9]{2}:?[0-5][0-9])?"
)
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_BASIC_DATE = re.compile(r"[0-9]{8}")


def parse_range_bound(text: str) -> datetime:
    """Parse a prepare ``from``/``to`` into an aware UTC datetime.

    Exactly three forms are accepted, because ``datetime.fromisoformat``
    alone would also take week dates, ordinal dates and basic times that clients never send
    and that would make a typo silently mean a different day:

    * ISO-8601 date-time ``2024-12-14T23:59:59Z``: seconds and a fraction are optional
      (fractions finer than a microsecond are truncated), the offset may be ``Z``, ``+HH:MM``
      or ``+HHMM`` and is converted to UTC, no offset means UTC;
    * ISO date ``2024-12-14`` -> midnight UTC;
    * basic date ``20241214`` -> midnight UTC.

    Anything else, including impossible dates, raises ``ValueError`` naming the three forms.

    >>> parse_range_bound("2024-12-14T23:59:59+01:00").isoformat()
    '2024-12-14T22:59:59+00:00'
    >>> parse_range_bound("20241214").isoformat()
    '2024-12-14T00:00:00+00:00'
    """
    candidate = text.strip()
    if any(form.fullmatch(candidate) for form in (_DATE_TIME, _ISO_DATE, _BASIC_DATE)):
        try:
            parsed = datetime.fromisoformat(candidate)
        except ValueError:
            pass
        else:
            if parsed.tzinfo is None:
                return parsed.replace(tzinfo=UTC)
            return parsed.astimezone(UTC)
    raise ValueError(
        f"{text!r} is not a valid range bound; use an ISO-8601 date-time "
        "(2024-12-14T23:59:59Z), an ISO date (2024-12-14) or a basic date (20241214)"
    )


def _sum_left_to_right(values: F64, starts: npt.NDArray[np.intp]) -> F64:
    """Segment sums added strictly left to right, bit for bit like a Python ``+=`` loop.

    ``np.add.reduceat`` is *not* that: numpy's float add reduction computes
    ``first + pairwise_sum(rest)``, which rounds differently. Subtraction has no pairwise
    path (it is not associative), so ``np.subtract.reduceat`` runs ``acc -= x`` in order;
    feeding it the negated tail of each segment gives ``acc + x`` with identical rounding,
    because ``a - (-b)`` and ``a + b`` are the same IEEE operation.
    """
    negated = np.negative(values)
    negated[starts] = values[starts]
    return np.subtract.reduceat(negated, starts)


def _require_positive(cadence_ms: int) -> int:
    if int(cadence_ms) != cadence_ms or cadence_ms <= 0:
        raise ValueError(f"cadence_ms must be a positive whole number, got {cadence_ms!r}")
    return int(cadence_ms)


def _require_sorted(ts: I64) -> None:
    if ts.size > 1 and bool(np.any(ts[1:] < ts[:-1])):
        raise ValueError("timestamps must be sorted ascending")


def aggregate_klines(
    ts: npt.ArrayLike,
    open_: npt.ArrayLike,
    high: npt.ArrayLike,
    low: npt.ArrayLike,
    close: npt.ArrayLike,
    volume: npt.ArrayLike,
    cadence_ms: int,
) -> dict[str, np.ndarray]:
    """Resample sorted fine bars (one second or finer) into bars of ``cadence_ms``.

    Buckets are aligned to epoch multiples of the cadence (``ts // cadence_ms * cadence_ms``),
    so the same bar always has the same open time whatever range was prepared. That holds for
    ``1w`` too: its buckets start on Thursdays, because 1970-01-01 was a Thursday, and ``1q``
    buckets are fixed 90-day spans, not calendar quarters. Per bucket: ``ts`` = bucket start,
    ``open`` = first open, ``high`` = max, ``low`` = min, ``close`` = last close, ``volume`` =
    sum added left to right (see :func:`_sum_left_to_right`), so the result equals a plain
    Python loop bit for bit. Buckets without bars are absent, not filled.

    The input bars must be no coarser than the cadence (the store's ``sim`` klines are 1 s);
    returned keys are ``KLINE_COLUMNS`` (``ts`` int64, the rest float64).

    >>> out = aggregate_klines([0, 1_000, 60_000], [1.0, 2.0, 3.0], [1.5, 2.5, 3.5],
    ...                        [0.5, 1.5, 2.5], [1.1, 2.1, 3.1], [1.0, 2.0, 4.0], 60_000)
    >>> out["ts"].tolist(), out["open"].tolist(), out["close"].tolist(), out["volume"].tolist()
    ([0, 60000], [1.0, 3.0], [2.1, 3.1], [3.0, 4.0])
    """
    cadence = _require_positive(cadence_ms)
    times = np.ascontiguousarray(ts, dtype=np.int64)
    cols = [np.ascontiguousarray(c, dtype=np.float64) for c in (open_, high, low, close, volume)]
    if times.ndim != 1 or any(c.shape != times.shape for c in cols):
        raise ValueError("kline columns must be one-dimensional and of equal length")
    _require_sorted(times)
    o, h, lo, c, v = cols
    if times.size == 0:
        return {name: _empty_column(name) for name in COLUMNS_BY_KIND[DataKind.KLINES]}
    bucket = times // cadence * cadence
    starts = np.concatenate(([0], np.flatnonzero(bucket[1:] != bucket[:-1]) + 1)).astype(np.intp)
    lasts = np.append(starts[1:], times.size) - 1
    return {
        "ts": bucket[starts],
        "open": o[starts],
        "high": np.maximum.reduceat(h, starts),
        "low": np.minimum.reduceat(lo, starts),
        "close": c[lasts],
        "volume": _sum_left_to_right(v, starts),
    }


def _empty_column(name: str) -> np.ndarray:
    return np.empty(0, dtype=column_dtype(name))


def _stored_columns(kind: DataKind, frames: list[HourFrame]) -> dict[str, np.ndarray]:
    """The frames' stored columns concatenated in hour order (ts int64, the rest float64)."""
    for frame in frames:
        if frame.kind != kind:
            raise ValueError(f"cannot assemble a {frame.kind} frame into a {kind} prepare")
    ordered = sorted(frames, key=lambda f: f.hour)
    for before, after in zip(ordered, ordered[1:], strict=False):
        if before.hour == after.hour:
            raise ValueError(f"hour {after.hour.isoformat()} is given twice")
    columns: dict[str, np.ndarray] = {}
    for name in COLUMNS_BY_KIND[kind]:
        parts = [_empty_column(name), *(f.columns[name] for f in ordered)]
        columns[name] = np.ascontiguousarray(
            np.concatenate(parts).astype(column_dtype(name), copy=False)
        )
    _require_sorted(columns["ts"])
    return columns


def assemble(kind: str, frames: list[HourFrame], cadence_ms: int) -> dict[str, np.ndarray]:
    """Build the engine's columns for a prepare of ``kind`` (the path ``type``) from hours.

    Returns exactly ``RUN_COLUMNS[kind]``, in that order, as contiguous int64 (``ts``,
    ``closeTs``) / float64 arrays, concatenated in hour order (frames may come in any order;
    an hour given twice is an error). Per kind:

    * ``ticker``: the raw ticks unchanged. The cadence is only recorded on the prepare; ticks
      are never resampled, because strategies see every quote.
    * ``kline``: all hours' stored bars are concatenated *first* and then aggregated with
      :func:`aggregate_klines`, so buckets wider than an hour (``4h``, ``1d``) span their
      hours correctly. ``closeTs`` = bucket start + ``cadence_ms`` - 1 (Binance convention),
      even for a last bucket that the range cuts short.
    * ``funding``: the rows as stored.

    No frames gives zero-length arrays of the right dtypes.

    >>> hour = datetime(2024, 12, 14, tzinfo=UTC)
    >>> cols = {"ts": np.array([0, 1_000]), "open": np.array([1.0, 2.0]),
    ...         "high": np.array([1.0, 2.0]), "low": np.array([1.0, 2.0]),
    ...         "close": np.array([1.0, 2.0]), "volume": np.array([1.0, 1.0])}
    >>> out = assemble("kline", [HourFrame(DataKind.KLINES, hour, cols)], 60_000)
    >>> list(out), out["closeTs"].tolist(), out["volume"].tolist()
    (['ts', 'closeTs', 'open', 'high', 'low', 'close', 'volume'], [59999], [2.0])
    """
    feed = DataType(kind)
    cadence = _require_positive(cadence_ms)
    stored = _stored_columns(feed.kind, frames)
    if feed is DataType.KLINE:
        bars = aggregate_klines(
            stored["ts"],
            stored["open"],
            stored["high"],
            stored["low"],
            stored["close"],
            stored["volume"],
            cadence,
        )
        bars[CLOSE_TS] = bars["ts"] + np.int64(cadence - 1)
        stored = bars
    return {name: np.ascontiguousarray(stored[name]) for name in RUN_COLUMNS[feed]}
