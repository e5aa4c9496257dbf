"""Coverage of a managed prepare: which hours of the range hold usable data.

A single-instrument prepare always ends ``Completed``; the caller decides whether the data is
good enough from ``coverageRatio`` and ``hoursWithoutData`` (wire reference §4.8). So the
classification has to be explicit and stable: an hour that was never stored is ``unknown``,
an hour that is stored but too sparse to trust is ``low_activity``, everything else has data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final, Literal

Rationale = Literal["low_activity", "pending_conversion", "unknown"]
"""The wire's strict enum for ``hoursWithoutData[].rationale``."""

UNKNOWN: Final = "unknown"
LOW_ACTIVITY: Final = "low_activity"

FUNDING_SETTLEMENT_HOURS: frozenset[int] = frozenset({0, 8, 16})
"""UTC hours at which funding settles; every other funding hour is legitimately empty."""

_KINDS = ("ticker", "kline", "funding")


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
    if kind == "funding":
        if hour.astimezone(UTC).hour not in FUNDING_SETTLEMENT_HOURS:
            return None
        # A settlement hour holds exactly one row, so a threshold above one cannot be met.
        return LOW_ACTIVITY if rows < min(low_activity_rows, 1) else None
    return LOW_ACTIVITY if rows < low_activity_rows else None


def coverage_of(
    hours: list[datetime],
    rows: list[int | None],
    *,
    low_activity_rows: int,
    first_ts: int | None,
    last_ts: int | None,
    kind: str = "ticker",
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
    if kind not in _KINDS:
        raise ValueError(f"unknown prepare type {kind!r}; use one of {', '.join(_KINDS)}")
    gaps: list[HourGap] = []
    for hour, count in zip(hours, rows, strict=True):
        rationale = _classify(hour, count, low_activity_rows=low_activity_rows, kind=kind)
        if rationale is not None:
            gaps.append(HourGap(hour=hour, expected=0, rationale=rationale))
    total = len(hours)
    with_data = total - len(gaps)
    return Coverage(
        total_hours=total,
        hours_with_data=with_data,
        without_data=gaps,
        ratio=with_data / total if total else 1.0,
        data_from=_from_ms(first_ts),
        data_to=_from_ms(last_ts),
    )
