"""Coverage of a managed prepare: hours with data, gaps and their rationale, data bounds."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta, timezone

import pytest

from backtestd.engine import coverage
from backtestd.engine.coverage import Coverage, HourGap, coverage_of

DAY = datetime(2024, 12, 14, tzinfo=UTC)


def hours(count: int, start: datetime = DAY) -> list[datetime]:
    return [start + timedelta(hours=i) for i in range(count)]


def test_docstring_examples_run() -> None:
    assert doctest.testmod(coverage).failed == 0


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
        HourGap(hs[0], 0, "unknown"),
        HourGap(hs[1], 0, "low_activity"),
        HourGap(hs[3], 0, "low_activity"),
        HourGap(hs[4], 0, "unknown"),
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
    assert c.without_data == [HourGap(hs[3], 0, "unknown"), HourGap(hs[8], 0, "low_activity")]


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


# -- per source kind and cadence (issue 14 point 2) -----------------------------------------

MONDAY = datetime(2024, 12, 9, tzinfo=UTC)
HOUR_MS = 3_600_000


def test_hourly_kline_source_with_one_bar_an_hour_is_fully_covered() -> None:
    hs = hours(48, MONDAY)
    c = coverage_of(
        hs, [1] * 48, low_activity_rows=60, first_ts=0, last_ts=1, kind="kline",
        native_cadence_ms=HOUR_MS,
    )  # fmt: skip
    assert (c.hours_with_data, c.ratio, c.without_data) == (48, 1.0, [])


def test_hourly_klines_without_the_native_width_are_judged_as_ticks() -> None:
    """The pre-fix behaviour this replaces: one bar an hour against a tick threshold."""
    c = coverage_of(hours(4), [1] * 4, low_activity_rows=60, first_ts=0, last_ts=1, kind="kline")
    assert c.ratio == 0.0


@pytest.mark.parametrize(("native_ms", "needed"), [(60_000, 30), (300_000, 6), (1_000, 60)])
def test_finer_kline_sources_need_half_their_bars_capped_by_the_threshold(
    native_ms: int, needed: int
) -> None:
    hs = hours(2)
    c = coverage_of(
        hs, [needed, needed - 1], low_activity_rows=60, first_ts=0, last_ts=1, kind="kline",
        native_cadence_ms=native_ms,
    )  # fmt: skip
    assert c.hours_with_data == 1
    assert c.without_data == [HourGap(hs[1], 0, "low_activity")]


def test_four_hour_klines_cover_every_hour_of_each_stored_bar() -> None:
    start = datetime(2024, 12, 10, 2, tzinfo=UTC)  # mid-bar: the 00:00 bar is clipped away
    hs = hours(10, start)  # 02:00 .. 11:00; bars open at 04:00 and 08:00
    rows: list[int | None] = [None] * 10
    rows[2] = 1  # 04:00
    rows[6] = 1  # 08:00
    c = coverage_of(
        hs, rows, low_activity_rows=60, first_ts=0, last_ts=1, kind="kline",
        native_cadence_ms=4 * HOUR_MS,
    )  # fmt: skip
    assert c.hours_with_data == 8
    assert [g.hour.hour for g in c.without_data] == [2, 3]
    assert {g.rationale for g in c.without_data} == {"unknown"}


def test_tick_source_uses_the_activity_threshold() -> None:
    hs = hours(3)
    c = coverage_of(hs, [3600, 59, 60], low_activity_rows=60, first_ts=0, last_ts=1)
    assert c.hours_with_data == 2
    assert c.without_data == [HourGap(hs[1], 0, "low_activity")]


def fx_week_rows(week_start: datetime, weeks: int) -> tuple[list[datetime], list[int | None]]:
    """Hourly bars of a market closed from Friday 22:00 to Sunday 22:00 UTC, as FX is."""
    hs = hours(weeks * 7 * 24, week_start)
    rows: list[int | None] = []
    for h in hs:
        closed = (
            (h.weekday() == 4 and h.hour >= 22)
            or h.weekday() == 5
            or (h.weekday() == 6 and h.hour < 22)
        )
        rows.append(None if closed else 1)
    return hs, rows


def test_weekend_closed_market_reports_its_closure_and_keeps_a_true_ratio() -> None:
    hs, rows = fx_week_rows(MONDAY, 2)
    c = coverage_of(
        hs, rows, low_activity_rows=60, first_ts=0, last_ts=1, kind="kline",
        native_cadence_ms=HOUR_MS,
    )  # fmt: skip
    closed = 2 * 48
    assert c.total_hours == 336
    assert c.closed_hours == closed
    assert c.hours_with_data == 336 - closed
    assert c.ratio == 1.0
    assert len(c.without_data) == closed
    assert {g.rationale for g in c.without_data} == {"low_activity"}


def test_a_weekday_gap_in_a_weekend_closed_market_still_counts() -> None:
    hs, rows = fx_week_rows(MONDAY, 1)
    rows[10] = None  # Monday 10:00 missing: a real gap
    c = coverage_of(
        hs, rows, low_activity_rows=60, first_ts=0, last_ts=1, kind="kline",
        native_cadence_ms=HOUR_MS,
    )  # fmt: skip
    assert c.closed_hours == 48
    assert c.ratio == pytest.approx(119 / 120)
    gap = [g for g in c.without_data if g.hour == hs[10]]
    assert gap == [HourGap(hs[10], 0, "unknown")]


def test_a_market_trading_on_saturdays_has_no_closure() -> None:
    hs = hours(7 * 24, MONDAY)
    rows: list[int | None] = [3600] * len(hs)
    rows[5 * 24 + 3] = None  # one Saturday hour missing from a 24/7 market
    c = coverage_of(hs, rows, low_activity_rows=60, first_ts=0, last_ts=1)
    assert c.closed_hours == 0
    assert c.without_data == [HourGap(hs[5 * 24 + 3], 0, "unknown")]


def test_no_closure_is_inferred_without_a_whole_saturday() -> None:
    start = datetime(2024, 12, 14, 20, tzinfo=UTC)  # Saturday 20:00, 8 hours
    c = coverage_of(hours(8, start), [None] * 4 + [1] * 4, low_activity_rows=1,
                    first_ts=0, last_ts=1)  # fmt: skip
    assert c.closed_hours == 0
    assert c.ratio == 0.5
