"""Coverage of a managed prepare: which hours of the range hold usable data.

A single-instrument prepare always ends ``Completed``; the caller decides whether the data is
good enough from ``coverageRatio`` and ``hoursWithoutData``. So the classification has to be
explicit, stable and right for the kind of source: an hour that was never stored is
``unknown``, an hour that is stored but sparser than its source should be is ``low_activity``,
everything else has data. What "sparse" means depends on the source: ticks need
``low_activity_rows`` rows an hour; kline bars of width ``w`` are judged against the bars an hour
can hold (one ``1h`` bar is a full hour; a ``4h`` bar covers its four hours). Hours in which the
market is closed (weekly closures found in the stored history) are not trading hours: they
are left out of ``totalHours`` and the ratio, and counted in ``closed_hours``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from backtestd.domain.backtest_results import HourWithoutData, Rationale
from backtestd.domain.marketdata import DataType

"""The wire's strict enum for ``hoursWithoutData[].rationale``."""

UNKNOWN: Final = "unknown"
LOW_ACTIVITY: Final = "low_activity"

FUNDING_SETTLEMENT_HOURS: frozenset[int] = frozenset({0, 8, 16})
"""UTC hours at which funding settles; every other funding hour is legitimately empty."""


@dataclass(frozen=True)
class Coverage:
    """The coverage fields of a managed ``PrepareJobState``."""

    total_hours: int
    hours_with_data: int
    without_data: list[HourWithoutData]
    ratio: float
    data_from: datetime | None
    data_to: datetime | None
    closed_hours: int = 0


HOUR_MS = 3_600_000
Slot = tuple[int, int]
"""(weekday, hour of day) in UTC, Monday = 0."""


def slot_of(hour: datetime) -> Slot:
    utc = hour.astimezone(UTC)
    return utc.weekday(), utc.hour


def closed_slots(stored_hours: list[datetime], min_days: int = 14) -> frozenset[Slot]:
    """Weekly slots in which a market never traded over its stored history.

    ``stored_hours`` are the hours that hold data. With at least ``min_days`` of history, a
    (weekday, hour) slot that never holds data is a closure (a market shut at weekends);
    with less history nothing is called closed.

    >>> monday = datetime(2024, 1, 1, tzinfo=UTC)
    >>> weekdays = [monday + timedelta(days=d, hours=h) for d in range(21) for h in range(24)
    ...             if (monday + timedelta(days=d)).weekday() < 5]
    >>> sorted({d for d, _ in closed_slots(weekdays)})
    [5, 6]
    """
    if not stored_hours:
        return frozenset()
    span = max(stored_hours) - min(stored_hours)
    if span < timedelta(days=min_days):
        return frozenset()
    seen = {slot_of(h) for h in stored_hours}
    return frozenset((d, h) for d in range(7) for h in range(24) if (d, h) not in seen)


def kline_threshold(native_ms: int, low_activity_rows: int) -> int:
    """Rows an hour of kline bars of width ``native_ms`` (at most an hour) needs to count.

    Half the bars the hour can hold, capped at the tick rule's ``low_activity_rows``, and at
    least one: ``1h`` bars need 1, ``1m`` bars 30, ``1s`` bars ``low_activity_rows``.

    >>> kline_threshold(3_600_000, 60), kline_threshold(60_000, 60), kline_threshold(1_000, 60)
    (1, 30, 60)
    """
    per_hour = max(1, HOUR_MS // native_ms)
    return max(1, min(low_activity_rows, per_hour // 2))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _from_ms(ms: int | None) -> datetime | None:
    """Exact conversion (no float seconds in between, so milliseconds never round)."""
    return None if ms is None else _EPOCH + timedelta(milliseconds=int(ms))


def _classify(
    hour: datetime, rows: int | None, *, low_activity_rows: int, kind: str
) -> Rationale | None:
    """Why ``hour`` has no usable data, or ``None`` when it has."""
    if rows is None:
        return UNKNOWN
    if rows < 0:
        raise ValueError(f"row count of {hour.isoformat()} is negative: {rows}")
    if kind == DataType.FUNDING:
        if hour.astimezone(UTC).hour not in FUNDING_SETTLEMENT_HOURS:
            return None
        # A settlement hour holds exactly one row, so a threshold above one cannot be met.
        return LOW_ACTIVITY if rows < min(low_activity_rows, 1) else None
    return LOW_ACTIVITY if rows < low_activity_rows else None


def _wide_bar_rows(
    hours: list[datetime], rows: list[int | None], native_ms: int
) -> list[int | None]:
    """Each hour's rows as the rows of the bar covering it (bars wider than an hour are stored
    in their opening hour, so the other hours of the bar are covered by it)."""
    by_hour = {int(h.timestamp() * 1000): r for h, r in zip(hours, rows, strict=True)}
    out: list[int | None] = []
    for hour in hours:
        ms = int(hour.timestamp() * 1000)
        out.append(by_hour.get(ms // native_ms * native_ms))
    return out


def coverage_of(
    hours: list[datetime],
    rows: list[int | None],
    *,
    low_activity_rows: int,
    first_ts: int | None,
    last_ts: int | None,
    kind: str = "ticker",
    native_ms: int | None = None,
    closed: frozenset[Slot] = frozenset(),
) -> Coverage:
    """Classify each hour of a prepare range and summarise it for ``PrepareJobState``.

    ``rows[i]`` is the stored row count of ``hours[i]`` (aware datetimes, hour starts), or
    ``None`` when the hour is not stored / not available. Rules:

    * ``None`` -> without data, rationale ``unknown``;
    * ``0 <= rows < low_activity_rows`` -> without data, rationale ``low_activity`` (the hour
      exists but is too sparse to trust; an empty stored hour is the extreme case);
    * otherwise -> with data.

    ``kind="funding"``: only the 00/08/16 UTC settlement hours are expected to hold rows. Any
    other hour that is *stored* counts as with data even when empty (that is what the exchange
    produced), while an unstored one is still ``unknown``. A settlement hour needs
    ``min(low_activity_rows, 1)`` rows, since it holds exactly one. ``total_hours`` stays the
    number of hours in the range for every kind, so prepares of one range agree on it.

    ``kind="kline"`` with ``native_ms`` (the source bar width): the threshold is
    :func:`kline_threshold` for bars up to an hour; a bar wider than an hour covers every hour
    it spans. Hours whose weekly slot is in ``closed`` and that hold no rows are market
    closures: they are counted in ``closed_hours``, not in ``total_hours``, the ratio or
    ``without_data``.

    ``ratio`` is ``hours_with_data / total_hours`` (1.0 for an empty range); ``data_from`` and
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
    if kind not in {t.value for t in DataType}:
        raise ValueError(f"unknown prepare type {kind!r}; use one of {', '.join(DataType)}")
    threshold = low_activity_rows
    judged = rows
    if kind == DataType.KLINE and native_ms:
        if native_ms > HOUR_MS:
            judged, threshold = _wide_bar_rows(hours, rows, native_ms), 1
        else:
            threshold = kline_threshold(native_ms, low_activity_rows)
    gaps: list[HourWithoutData] = []
    closed_count = 0
    for hour, count in zip(hours, judged, strict=True):
        rationale = _classify(hour, count, low_activity_rows=threshold, kind=kind)
        if rationale is None:
            continue
        if not count and slot_of(hour) in closed:
            closed_count += 1
            continue
        gaps.append(HourWithoutData(hour=hour, expected=0, rationale=rationale))
    total = len(hours) - closed_count
    with_data = total - len(gaps)
    return Coverage(
        total_hours=total,
        hours_with_data=with_data,
        without_data=gaps,
        ratio=with_data / total if total else 1.0,
        data_from=_from_ms(first_ts),
        data_to=_from_ms(last_ts),
        closed_hours=closed_count,
    )
