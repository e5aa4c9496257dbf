"""Coverage of a managed prepare: hours with data, gaps and their rationale, data bounds."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta, timezone

import pytest

from backtestd.domain.backtest_results import HourWithoutData
from backtestd.engine import coverage
from backtestd.engine.coverage import Coverage, closed_slots, coverage_of

DAY = datetime(2024, 12, 14, tzinfo=UTC)


def hours(count: int, start: datetime = DAY) -> list[datetime]:
    return [start + timedelta(hours=i) for i in range(count)]


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(coverage)
    assert outcome.failed == 0
    assert outcome.attempted > 0


def test_all_hours_present() -> None:
    c = coverage_of(hours(3), [10, 11, 12], low_activity_rows=10, first_ts=0, last_ts=5)
    assert c == Coverage(3, 3, [], 1.0, datetime(1970, 1, 1, tzinfo=UTC), c.data_to)
    assert c.data_to == datetime(1970, 1, 1, 0, 0, 0, 5_000, tzinfo=UTC)


def test_missing_hours_are_unknown_and_sparse_hours_low_activity() -> None:
    hs = hours(5)
    c = coverage_of(hs, [None, 9, 10, 0, None], low_activity_rows=10, first_ts=None, last_ts=None)
    assert c.total_hours == 5
    assert c.hours_with_data == 1
    assert c.ratio == pytest.approx(0.2)
    assert c.without_data == [
        HourWithoutData(hs[0], 0, "unknown"),
        HourWithoutData(hs[1], 0, "low_activity"),
        HourWithoutData(hs[3], 0, "low_activity"),
        HourWithoutData(hs[4], 0, "unknown"),
    ]


def test_threshold_is_inclusive_and_zero_threshold_accepts_empty_hours() -> None:
    at = coverage_of(hours(1), [10], low_activity_rows=10, first_ts=None, last_ts=None)
    assert at.hours_with_data == 1
    empty = coverage_of(hours(1), [0], low_activity_rows=0, first_ts=None, last_ts=None)
    assert empty.hours_with_data == 1
    assert empty.without_data == []


def test_empty_range_has_full_ratio_and_no_bounds() -> None:
    c = coverage_of([], [], low_activity_rows=1, first_ts=None, last_ts=None)
    assert c == Coverage(0, 0, [], 1.0, None, None)


def test_expected_is_always_zero() -> None:
    c = coverage_of(hours(4), [None, 0, 1, None], low_activity_rows=5, first_ts=None, last_ts=None)
    assert [g.expected for g in c.without_data] == [0, 0, 0, 0]


def test_data_bounds_keep_milliseconds_exactly() -> None:
    first, last = 1_734_134_400_001, 1_734_220_799_999
    c = coverage_of(hours(1), [1], low_activity_rows=1, first_ts=first, last_ts=last)
    assert c.data_from == datetime(2024, 12, 14, 0, 0, 0, 1_000, tzinfo=UTC)
    assert c.data_to == datetime(2024, 12, 14, 23, 59, 59, 999_000, tzinfo=UTC)
    assert c.data_from is not None
    assert c.data_from.tzinfo is UTC


def test_funding_counts_stored_non_settlement_hours_as_covered() -> None:
    hs = hours(24)
    rows: list[int | None] = [1 if h.hour in (0, 8, 16) else 0 for h in hs]
    c = coverage_of(hs, rows, low_activity_rows=50, first_ts=None, last_ts=None, kind="funding")
    assert (c.total_hours, c.hours_with_data, c.ratio, c.without_data) == (24, 24, 1.0, [])


def test_funding_gaps_are_empty_settlements_and_unstored_hours() -> None:
    hs = hours(24)
    rows: list[int | None] = [1 if h.hour in (0, 16) else 0 for h in hs]
    rows[3] = None
    c = coverage_of(hs, rows, low_activity_rows=1, first_ts=None, last_ts=None, kind="funding")
    assert c.hours_with_data == 22
    assert c.without_data == [
        HourWithoutData(hs[3], 0, "unknown"),
        HourWithoutData(hs[8], 0, "low_activity"),
    ]


def test_funding_settlement_hours_are_judged_in_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    local_two_am = datetime(2024, 12, 14, 2, tzinfo=plus_two)  # 00:00 UTC: a settlement hour
    c = coverage_of(
        [local_two_am], [0], low_activity_rows=1, first_ts=None, last_ts=None, kind="funding"
    )
    assert [g.rationale for g in c.without_data] == ["low_activity"]


def test_ticker_and_kline_empty_hours_are_low_activity() -> None:
    for kind in ("ticker", "kline"):
        c = coverage_of(
            hours(2), [0, 5], low_activity_rows=1, first_ts=None, last_ts=None, kind=kind
        )
        assert [g.rationale for g in c.without_data] == ["low_activity"]


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="2 hours but 1 row counts"):
        coverage_of(hours(2), [1], low_activity_rows=1, first_ts=None, last_ts=None)
    with pytest.raises(ValueError, match="negative"):
        coverage_of(hours(1), [-1], low_activity_rows=1, first_ts=None, last_ts=None)
    with pytest.raises(ValueError, match="unknown prepare type"):
        coverage_of(hours(1), [1], low_activity_rows=1, first_ts=None, last_ts=None, kind="x")


# -- per source kind -----------------------------------------------------------------------

H0 = datetime(2024, 1, 1, tzinfo=UTC)  # a Monday


def _hours(n: int) -> list[datetime]:
    return [H0 + timedelta(hours=i) for i in range(n)]


def test_hourly_kline_source_with_one_bar_an_hour_is_fully_covered() -> None:
    c = coverage_of(
        _hours(5),
        [1] * 5,
        low_activity_rows=60,
        first_ts=0,
        last_ts=1,
        kind="kline",
        native_ms=3_600_000,
    )
    assert (c.ratio, c.without_data) == (1.0, [])


def test_minute_kline_source_needs_half_an_hour_of_bars() -> None:
    c = coverage_of(
        _hours(3),
        [60, 30, 29],
        low_activity_rows=60,
        first_ts=0,
        last_ts=1,
        kind="kline",
        native_ms=60_000,
    )
    assert [g.rationale for g in c.without_data] == ["low_activity"]
    assert c.without_data[0].hour == H0 + timedelta(hours=2)


def test_bars_wider_than_an_hour_cover_every_hour_they_span() -> None:
    # 4h bars: stored in their opening hour only; the next bar (hour 4) is missing.
    rows: list[int | None] = [1, None, None, None, None, None, None, None]
    c = coverage_of(
        _hours(8),
        rows,
        low_activity_rows=60,
        first_ts=0,
        last_ts=1,
        kind="kline",
        native_ms=4 * 3_600_000,
    )
    assert c.hours_with_data == 4
    assert [g.hour.hour for g in c.without_data] == [4, 5, 6, 7]


def test_tick_source_keeps_the_activity_threshold() -> None:
    c = coverage_of(_hours(2), [60, 59], low_activity_rows=60, first_ts=0, last_ts=1)
    assert [g.rationale for g in c.without_data] == ["low_activity"]


def test_weekend_closures_are_not_trading_hours() -> None:
    week = _hours(7 * 24)
    traded = [h for h in _hours(21 * 24) if h.weekday() < 5]
    closed = closed_slots(traded)
    rows = [None if h.weekday() >= 5 else 1 for h in week]
    c = coverage_of(
        week,
        rows,
        low_activity_rows=60,
        first_ts=0,
        last_ts=1,
        kind="kline",
        native_ms=3_600_000,
        closed=closed,
    )
    assert c.closed_hours == 48
    assert c.total_hours == 120
    assert c.ratio == 1.0
    rows[10] = None  # a missing weekday hour is still a gap
    c = coverage_of(
        week,
        rows,
        low_activity_rows=60,
        first_ts=0,
        last_ts=1,
        kind="kline",
        native_ms=3_600_000,
        closed=closed,
    )
    assert [g.rationale for g in c.without_data] == ["unknown"]
    assert c.ratio == pytest.approx(119 / 120)


def test_short_history_calls_nothing_closed() -> None:
    assert closed_slots([h for h in _hours(7 * 24) if h.weekday() < 5]) == frozenset()
