"""Coverage of a managed prepare: which hours of the range hold usable data.

A single-instrument prepare always ends ``Completed``; the caller decides whether the data is
good enough from ``coverageRatio`` and ``hoursWithoutData`` (wire reference §4.8). So the
classification has to be explicit and stable: an hour that was never stored is ``unknown``,
an hour that is stored but too sparse to trust is ``low_activity``, everything else has data.

"Too sparse" depends on the source (docs/prepare.md, "Coverage"): tick data needs the
configured activity threshold of rows an hour; a kline source needs half the bars its native
width puts in an hour (capped by the same threshold), so an hourly kline source needs its one
bar and a ``4h`` source covers the four hours of each stored bar. A market that is closed at
weekends (no row on any Saturday of the range while weekdays have rows) has its weekend hours
reported as ``low_activity`` — the wire enum is strict, and a closed market has no activity —
and they are left out of ``coverageRatio``'s denominator, since no data was ever expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from math import ceil
from typing import Final, Literal

Rationale = Literal["low_activity", "pending_conversion", "unknown"]
"""The wire's strict enum for ``hoursWithoutData[].rationale``."""

UNKNOWN: Final = "unknown"
LOW_ACTIVITY: Final = "low_activity"

FUNDING_SETTLEMENT_HOURS: frozenset[int] = frozenset({0, 8, 16})
"""UTC hours at which funding settles; every other funding hour is legitimately empty."""

_KINDS = ("ticker", "kline", "funding")
_HOUR_MS = 3_600_000
_SATURDAY = 5


@dataclass(frozen=True)
class HourGap:
    """One entry of ``hoursWithoutData``. ``expected`` is always 0 (wire reference §4.8)."""

    hour: datetime
    expected: int
    rationale: Rationale


@dataclass(frozen=True)
class Coverage:
    """The coverage fields of a managed ``PrepareJobState``."""

    total_hours: int
    hours_with_data: int
    without_data: list[HourGap]
    ratio: float
    data_from: datetime | None
    data_to: datetime | None
    closed_hours: int = 0
    """Hours of ``without_data`` that fall in a weekend closure (left out of ``ratio``)."""


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _from_ms(ms: int | None) -> datetime | None:
    """Exact conversion (no float seconds in between, so milliseconds never round)."""
    return None if ms is None else _EPOCH + timedelta(milliseconds=int(ms))


def _classify(hour: datetime, rows: int | None, *, threshold: int, kind: str) -> Rationale | None:
    """Why ``hour`` has no usable data, or ``None`` when it has."""
    if rows is None:
        return UNKNOWN
    if rows < 0:
        raise ValueError(f"row count of {hour.isoformat()} is negative: {rows}")
    if kind == "funding":
        if hour.astimezone(UTC).hour not in FUNDING_SETTLEMENT_HOURS:
            return None
        # A settlement hour holds exactly one row, so a threshold above one cannot be met.
        return LOW_ACTIVITY if rows < min(threshold, 1) else None
    return LOW_ACTIVITY if rows < threshold else None


def hour_threshold(kind: str, low_activity_rows: int, native_cadence_ms: int | None) -> int:
    """Rows an hour needs to count as with data, per source kind and native cadence.

    Ticks (and a kline source of unknown width) use ``low_activity_rows``. A kline source of
    native width ``w`` holds ``3600 s / w`` bars an hour; it needs half of them, rounded up,
    and never more than ``low_activity_rows`` (so ``1h`` and coarser need one bar).

    >>> hour_threshold("kline", 60, 3_600_000), hour_threshold("kline", 60, 60_000)
    (1, 30)
    >>> hour_threshold("kline", 60, 1_000), hour_threshold("ticker", 60, None)
    (60, 60)
    """
    if kind != "kline" or native_cadence_ms is None:
        return low_activity_rows
    bars_per_hour = max(1, _HOUR_MS // native_cadence_ms)
    return min(low_activity_rows, ceil(bars_per_hour / 2))


def _spread_coarse_bars(
    hours: list[datetime], rows: list[int | None], native_cadence_ms: int | None
) -> list[int | None]:
    """For a kline source coarser than an hour, give every hour its bar's row count.

    Such a source stores each bar in the hour it opens, so the following hours of the bar are
    not stored although they are covered. A bar that opens before the range is not part of
    the prepare (it is clipped away), so the hours before the first in-range bar stay as given.
    """
    if native_cadence_ms is None or native_cadence_ms <= _HOUR_MS:
        return rows
    spread = list(rows)
    by_hour = {h: i for i, h in enumerate(hours)}
    for index, (hour, count) in enumerate(zip(hours, rows, strict=True)):
        if count is not None:
            continue
        hour_ms = int(hour.timestamp() * 1000)
        bar_start = hour_ms // native_cadence_ms * native_cadence_ms
        start_index = by_hour.get(_EPOCH + timedelta(milliseconds=bar_start))
        if start_index is not None:
            spread[index] = rows[start_index]
    return spread


def _closed_at_weekends(hours: list[datetime], rows: list[int | None]) -> bool:
    """True when the range has a whole Saturday (UTC), no Saturday hour holds rows, and some
    weekday does: the pattern of a market that closes at weekends (FX, equities)."""
    saturdays: dict[datetime, int] = {}
    weekday_rows = False
    for hour, count in zip(hours, rows, strict=True):
        utc = hour.astimezone(UTC)
        if utc.weekday() == _SATURDAY:
            day = utc.replace(hour=0)
            saturdays[day] = saturdays.get(day, 0) + 1
            if count:
                return False
        elif count:
            weekday_rows = True
    return weekday_rows and any(n == 24 for n in saturdays.values())


def _weekend_gap_hours(
    hours: list[datetime], rows: list[int | None], without: set[int]
) -> set[int]:
    """Indexes of hours without data that belong to a run touching a Saturday and lying
    between Friday 00:00 and Monday 00:00 UTC (the closure, whatever its exact hours)."""
    closed: set[int] = set()
    index = 0
    while index < len(hours):
        if index not in without:
            index += 1
            continue
        end = index
        while end + 1 < len(hours) and end + 1 in without:
            end += 1
        days = {hours[i].astimezone(UTC).weekday() for i in range(index, end + 1)}
        if _SATURDAY in days and days <= {4, 5, 6}:
            closed.update(range(index, end + 1))
        index = end + 1
    return closed


def coverage_of(
    hours: list[datetime],
    rows: list[int | None],
    *,
    low_activity_rows: int,
    first_ts: int | None,
    last_ts: int | None,
    kind: str = "ticker",
    native_cadence_ms: int | None = None,
) -> Coverage:
    """Classify each hour of a prepare range and summarise it for ``PrepareJobState``.

    ``rows[i]`` is the stored row count of ``hours[i]`` (aware datetimes, hour starts), or
    ``None`` when the hour is not stored / not available. Rules:

    * ``None`` -> without data, rationale ``unknown``;
    * ``0 <= rows < threshold`` -> without data, rationale ``low_activity`` (the hour
      exists but is too sparse to trust; an empty stored hour is the extreme case), where the
      threshold is :func:`hour_threshold` of the kind and the source's native cadence;
    * otherwise -> with data.

    A kline source coarser than an hour (``native_cadence_ms``) covers every hour of each
    stored bar. When the range looks like a market closed at weekends, its weekend hours
    without data count in ``closed_hours`` and not in the ratio's denominator.

    ``kind="funding"``: only the 00/08/16 UTC settlement hours are expected to hold rows. Any
    other hour that is *stored* counts as with data even when empty (that is what the exchange
    produced), while an unstored one is still ``unknown``. A settlement hour needs
    ``min(low_activity_rows, 1)`` rows, since it holds exactly one. ``total_hours`` stays the
    number of hours in the range for every kind, so prepares of one range agree on it.

    ``ratio`` is ``hours_with_data / (total_hours - closed_hours)`` (1.0 when nothing is
    expected); ``data_from`` and
    ``data_to`` are ``first_ts`` / ``last_ts`` (epoch ms of the first and last row) as UTC
    datetimes, ``None`` when there are no rows.

    >>> h0 = datetime(2024, 12, 14, tzinfo=UTC)
    >>> hours = [h0 + timedelta(hours=i) for i in range(4)]
    >>> c = coverage_of(hours, [3600, None, 2, 3500], low_activity_rows=10,
    ...                 first_ts=1734134400000, last_ts=1734148799000)
    >>> c.hours_with_data, c.ratio, [(g.hour.hour, g.rationale) for g in c.without_data]
    (2, 0.5, [(1, 'unknown'), (2, 'low_activity')])
    >>> c.data_to.isoformat()
    '2024-12-14T03:59:59+00:00'
    """
    if len(hours) != len(rows):
        raise ValueError(f"{len(hours)} hours but {len(rows)} row counts")
    if kind not in _KINDS:
        raise ValueError(f"unknown prepare type {kind!r}; use one of {', '.join(_KINDS)}")
    threshold = hour_threshold(kind, low_activity_rows, native_cadence_ms)
    counts = _spread_coarse_bars(hours, rows, native_cadence_ms) if kind == "kline" else rows
    rationales = [
        _classify(hour, count, threshold=threshold, kind=kind)
        for hour, count in zip(hours, counts, strict=True)
    ]
    without = {i for i, rationale in enumerate(rationales) if rationale is not None}
    closed: set[int] = set()
    if kind != "funding" and _closed_at_weekends(hours, counts):
        closed = _weekend_gap_hours(hours, counts, without)
    gaps = [
        HourGap(hour=hours[i], expected=0, rationale=LOW_ACTIVITY if i in closed else r)
        for i, r in enumerate(rationales)
        if r is not None
    ]
    total = len(hours)
    with_data = total - len(gaps)
    expected = total - len(closed)
    return Coverage(
        total_hours=total,
        hours_with_data=with_data,
        without_data=gaps,
        ratio=with_data / expected if expected else 1.0,
        data_from=_from_ms(first_ts),
        data_to=_from_ms(last_ts),
        closed_hours=len(closed),
    )
