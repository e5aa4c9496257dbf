"""Prepare kernels: range bounds, kline aggregation and the engine's column assembly."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.domain.marketdata import HOUR_MS, RUN_COLUMNS, DataKind, DataType, HourFrame, hour_ms
from backtestd.engine import prepare
from backtestd.engine.cadence import CADENCE_MS, KLINE_CADENCES, allowed_cadences
from backtestd.engine.prepare import aggregate_klines, assemble, parse_range_bound

DAY = datetime(2024, 12, 14, tzinfo=UTC)
KLINE_FIELDS = ("open", "high", "low", "close", "volume")


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(prepare)
    assert outcome.failed == 0
    assert outcome.attempted > 0


# --- range bounds ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-12-14T23:59:59Z", datetime(2024, 12, 14, 23, 59, 59, tzinfo=UTC)),
        ("2024-12-14T23:59:59+00:00", datetime(2024, 12, 14, 23, 59, 59, tzinfo=UTC)),
        ("2024-12-14T23:59:59+0000", datetime(2024, 12, 14, 23, 59, 59, tzinfo=UTC)),
        ("2024-12-15T01:29:59+01:30", datetime(2024, 12, 14, 23, 59, 59, tzinfo=UTC)),
        ("2024-12-14T18:59:59-05:00", datetime(2024, 12, 14, 23, 59, 59, tzinfo=UTC)),
        ("2024-12-14T23:59:59", datetime(2024, 12, 14, 23, 59, 59, tzinfo=UTC)),
        ("2024-12-14T23:59", datetime(2024, 12, 14, 23, 59, tzinfo=UTC)),
        ("2024-12-14T23:59:59.5Z", datetime(2024, 12, 14, 23, 59, 59, 500_000, tzinfo=UTC)),
        ("2024-12-14T23:59:59.123Z", datetime(2024, 12, 14, 23, 59, 59, 123_000, tzinfo=UTC)),
        ("2024-12-14T23:59:59.1234567", datetime(2024, 12, 14, 23, 59, 59, 123_456, tzinfo=UTC)),
        ("2024-12-14", DAY),
        ("20241214", DAY),
        ("  2024-12-14\n", DAY),
        ("2024-02-29", datetime(2024, 2, 29, tzinfo=UTC)),
    ],
)
def test_range_bound_forms(text: str, expected: datetime) -> None:
    parsed = parse_range_bound(text)
    assert parsed == expected
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yesterday",
        "2024-12-14T",
        "2024-12-14T23",
        "2024-12-14 23:59:59",
        "2024-12-14T23:59:59 Z",
        "2024-12-14T23:59:59+00:60",
        "2024-12-14T24:00:00Z",
        "2024-12-14T23:59:60Z",
        "2024-02-30",
        "2023-02-29",
        "20241314",
        "2024121",
        "202412140",
        "2024-W50-6",
        "2024-349",
        "20241214T235959Z",
        "14/12/2024",
        "1734220799",
        "２０２４１２１４",
    ],
)
def test_range_bound_garbage_names_the_accepted_forms(text: str) -> None:
    with pytest.raises(ValueError, match="not a valid range bound") as info:
        parse_range_bound(text)
    message = str(info.value)
    for form in ("2024-12-14T23:59:59Z", "(2024-12-14)", "(20241214)"):
        assert form in message


# --- kline aggregation ----------------------------------------------------------------------


def reference_aggregate(
    ts: list[int], columns: dict[str, list[float]], cadence_ms: int
) -> dict[str, list[float] | list[int]]:
    """A straightforward, independent Python loop over the rows."""
    out: dict[str, list] = {name: [] for name in ("ts", *KLINE_FIELDS)}
    current: int | None = None
    for i, t in enumerate(ts):
        bucket = (t // cadence_ms) * cadence_ms
        o, h, lo, c, v = (columns[name][i] for name in KLINE_FIELDS)
        if bucket != current:
            current = bucket
            out["ts"].append(bucket)
            out["open"].append(o)
            out["high"].append(h)
            out["low"].append(lo)
            out["close"].append(c)
            out["volume"].append(v)
        else:
            out["high"][-1] = max(out["high"][-1], h)
            out["low"][-1] = min(out["low"][-1], lo)
            out["close"][-1] = c
            out["volume"][-1] += v
    return out


prices = st.floats(min_value=1e-8, max_value=1e12, allow_nan=False, allow_infinity=False)
volumes = st.floats(min_value=0.0, max_value=1e16, allow_nan=False, allow_infinity=False)


@st.composite
def fine_bars(draw: st.DrawFn) -> tuple[list[int], dict[str, list[float]], int]:
    n = draw(st.integers(min_value=0, max_value=150))
    start = draw(st.integers(min_value=0, max_value=2_000_000_000_000))
    steps = draw(
        st.lists(
            st.sampled_from([1, 250, 1_000, 1_000, 2_000, 61_000, 3_600_000]),
            min_size=n,
            max_size=n,
        )
    )
    ts = np.cumsum([start, *steps])[:n].tolist()
    cols = {name: draw(st.lists(prices, min_size=n, max_size=n)) for name in KLINE_FIELDS[:-1]}
    cols["volume"] = draw(st.lists(volumes, min_size=n, max_size=n))
    cadence = draw(st.sampled_from([*CADENCE_MS.values(), 2_000, 7_000]))
    return ts, cols, cadence


@settings(max_examples=300, deadline=None)
@given(fine_bars())
def test_aggregate_equals_a_python_loop_bit_for_bit(
    bars: tuple[list[int], dict[str, list[float]], int],
) -> None:
    ts, cols, cadence = bars
    got = aggregate_klines(ts, *(cols[name] for name in KLINE_FIELDS), cadence)
    want = reference_aggregate(ts, cols, cadence)
    assert list(got) == ["ts", *KLINE_FIELDS]
    assert got["ts"].dtype == np.int64
    assert got["ts"].tolist() == want["ts"]
    for name in KLINE_FIELDS:
        assert got[name].dtype == np.float64
        # Compare bit patterns, so 0.0 vs -0.0 or one-ulp differences cannot hide.
        assert got[name].view(np.int64).tolist() == np.array(want[name]).view(np.int64).tolist()


def test_volume_is_summed_left_to_right_not_pairwise() -> None:
    # Left to right, each +1 is absorbed by 1e16; np.add.reduceat would give 1e16 + 2.
    volume = [1e16, 1.0, 1.0, 5.0, 1e-3, 1e16]
    out = aggregate_klines(
        [0, 1, 2, 1_000, 1_001, 1_002], volume, volume, volume, volume, volume, 1_000
    )
    assert out["volume"].tolist() == [1e16, (5.0 + 1e-3) + 1e16]
    assert np.add.reduceat(np.array(volume), [0, 3])[0] != out["volume"][0]


def test_aggregate_large_random_series_matches_the_loop() -> None:
    rng = np.random.default_rng(7)
    ts = np.sort(rng.choice(86_400, size=20_000, replace=False)).astype(np.int64) * 1_000
    cols = {name: rng.lognormal(size=ts.size) * 1e3 for name in KLINE_FIELDS}
    for cadence in (60_000, 3_600_000, 86_400_000):
        got = aggregate_klines(ts, *(cols[n] for n in KLINE_FIELDS), cadence)
        want = reference_aggregate(ts.tolist(), {k: v.tolist() for k, v in cols.items()}, cadence)
        for name in ("ts", *KLINE_FIELDS):
            assert got[name].tolist() == want[name]


@pytest.mark.parametrize(
    ("label", "bucket"),
    [
        ("1m", 1_734_220_740_000),  # 2024-12-14T23:59:00Z
        ("4h", 1_734_206_400_000),  # 2024-12-14T20:00:00Z
        ("1d", 1_734_134_400_000),  # 2024-12-14T00:00:00Z
        ("1w", 1_733_961_600_000),  # Thursday 2024-12-12T00:00:00Z
        ("1q", 1_734_048_000_000),  # 223 × 90 days after the epoch: 2024-12-13T00:00:00Z
    ],
)
def test_buckets_align_to_epoch_multiples(label: str, bucket: int) -> None:
    ts = 1_734_220_799_000  # 2024-12-14T23:59:59Z
    out = aggregate_klines([ts], [1.0], [1.0], [1.0], [1.0], [1.0], CADENCE_MS[label])
    assert out["ts"].tolist() == [bucket]
    assert bucket % CADENCE_MS[label] == 0


def test_weekly_buckets_start_on_thursday() -> None:
    out = aggregate_klines([1_734_220_799_000], [1.0], [1.0], [1.0], [1.0], [1.0], CADENCE_MS["1w"])
    start = datetime.fromtimestamp(int(out["ts"][0]) / 1000, tz=UTC)
    assert start.weekday() == 3  # Thursday, like 1970-01-01


def test_buckets_without_bars_are_absent() -> None:
    out = aggregate_klines(
        [0, 1_000, 300_000],
        [1.0, 2.0, 3.0],
        [1.0, 2.0, 3.0],
        [1.0, 2.0, 3.0],
        [1.0, 2.0, 3.0],
        [1.0, 1.0, 1.0],
        60_000,
    )
    assert out["ts"].tolist() == [0, 300_000]


def test_aggregate_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="sorted"):
        aggregate_klines([1_000, 0], [1, 1], [1, 1], [1, 1], [1, 1], [1, 1], 60_000)
    with pytest.raises(ValueError, match="equal length"):
        aggregate_klines([0, 1_000], [1], [1, 1], [1, 1], [1, 1], [1, 1], 60_000)
    for bad in (0, -60_000):
        with pytest.raises(ValueError, match="positive"):
            aggregate_klines([0], [1], [1], [1], [1], [1], bad)


def test_aggregate_empty_input() -> None:
    out = aggregate_klines([], [], [], [], [], [], 60_000)
    assert list(out) == ["ts", *KLINE_FIELDS]
    assert all(a.size == 0 for a in out.values())
    assert out["ts"].dtype == np.int64
    assert out["volume"].dtype == np.float64


# --- assembly -------------------------------------------------------------------------------


def kline_hour(hour: datetime, seconds: range | list[int] | None = None) -> HourFrame:
    """One-second bars for ``hour``; values derived from the timestamp so tests can predict."""
    secs = np.arange(3_600) if seconds is None else np.asarray(list(seconds))
    ts = hour_ms(hour) + secs.astype(np.int64) * 1_000
    price = 100.0 + (ts // 1_000 % 997) / 10
    return HourFrame(
        DataKind.KLINES,
        hour,
        {
            "ts": ts,
            "open": price,
            "high": price + 0.5,
            "low": price - 0.5,
            "close": price + 0.1,
            "volume": np.full(ts.size, 0.1),
        },
    )


def ticker_hour(hour: datetime, n: int) -> HourFrame:
    ts = hour_ms(hour) + np.arange(n, dtype=np.int64) * 700
    cols = {"ts": ts}
    for i, name in enumerate(("bid", "bidSize", "ask", "askSize", "last", "volume")):
        cols[name] = np.linspace(i, i + 1, n)
    return HourFrame(DataKind.TICKERS, hour, cols)


def funding_hour(hour: datetime) -> HourFrame:
    if hour.hour % 8:
        return HourFrame.empty(DataKind.FUNDING, hour)
    return HourFrame(
        DataKind.FUNDING,
        hour,
        {"ts": np.array([hour_ms(hour)]), "rate": np.array([1e-4]), "markPrice": np.array([1e5])},
    )


def assert_engine_layout(kind: str, out: dict[str, np.ndarray]) -> None:
    assert tuple(out) == RUN_COLUMNS[DataType(kind)]
    lengths = {a.size for a in out.values()}
    assert len(lengths) == 1
    for name, array in out.items():
        assert array.dtype == (np.int64 if name in ("ts", "closeTs") else np.float64), name
        assert array.ndim == 1
        assert array.flags.c_contiguous


@pytest.mark.parametrize("kind", ["ticker", "kline", "funding"])
def test_empty_input_gives_zero_length_typed_columns(kind: str) -> None:
    out = assemble(kind, [], 60_000)
    assert_engine_layout(kind, out)
    assert all(a.size == 0 for a in out.values())


@pytest.mark.parametrize("kind", ["ticker", "kline", "funding"])
def test_only_empty_hours_give_zero_length_typed_columns(kind: str) -> None:
    frames = [HourFrame.empty(DataKind(f"{kind}s" if kind != "funding" else kind), DAY)]
    out = assemble(kind, frames, 1_000)
    assert_engine_layout(kind, out)
    assert out["ts"].size == 0


@pytest.mark.parametrize("cadence_ms", [1_000, 60_000, 86_400_000])
def test_ticker_rows_are_unchanged_whatever_the_cadence(cadence_ms: int) -> None:
    frames = [ticker_hour(DAY + timedelta(hours=1), 5), ticker_hour(DAY, 3)]
    out = assemble("ticker", frames, cadence_ms)
    assert_engine_layout("ticker", out)
    for name in RUN_COLUMNS[DataType.TICKER]:
        expected = np.concatenate([frames[1].columns[name], frames[0].columns[name]])
        assert out[name].tolist() == expected.tolist()


def test_funding_rows_as_stored() -> None:
    frames = [funding_hour(DAY + timedelta(hours=h)) for h in range(24)]
    out = assemble("funding", frames, 1_000)
    assert_engine_layout("funding", out)
    assert out["ts"].tolist() == [hour_ms(DAY) + h * HOUR_MS for h in (0, 8, 16)]
    assert out["rate"].tolist() == [1e-4] * 3
    assert out["markPrice"].tolist() == [1e5] * 3


def test_kline_one_second_keeps_bars_and_sets_close_ts() -> None:
    frame = kline_hour(DAY, [0, 1, 5])
    out = assemble("kline", [frame], 1_000)
    assert_engine_layout("kline", out)
    assert out["ts"].tolist() == frame.columns["ts"].tolist()
    assert (out["closeTs"] - out["ts"]).tolist() == [999, 999, 999]
    for name in KLINE_FIELDS:
        assert out[name].tolist() == frame.columns[name].tolist()


@pytest.mark.parametrize("label", ["4h", "1d"])
def test_kline_buckets_span_hour_boundaries(label: str) -> None:
    cadence = CADENCE_MS[label]
    # 30 hours starting at 22:00 the day before: crosses midnight and several 4h boundaries.
    start = DAY - timedelta(hours=2)
    frames = [kline_hour(start + timedelta(hours=h), range(0, 3_600, 7)) for h in range(30)]
    out = assemble("kline", frames[::-1], cadence)  # hour order is restored by assemble
    assert_engine_layout("kline", out)

    ts = np.concatenate([f.columns["ts"] for f in frames])
    cols = {n: np.concatenate([f.columns[n] for f in frames]).tolist() for n in KLINE_FIELDS}
    want = reference_aggregate(ts.tolist(), cols, cadence)
    assert out["ts"].tolist() == want["ts"]
    assert (out["closeTs"] - out["ts"]).tolist() == [cadence - 1] * len(want["ts"])
    for name in KLINE_FIELDS:
        assert out[name].tolist() == want[name]
    # One bucket per boundary-aligned window touched, never one per hour.
    assert len(want["ts"]) == (3 if label == "1d" else 8)
    assert all(t % cadence == 0 for t in out["ts"].tolist())


def test_kline_bucket_merges_bars_from_two_hours() -> None:
    frames = [kline_hour(DAY, [3_599]), kline_hour(DAY + timedelta(hours=1), [0])]
    out = assemble("kline", frames, CADENCE_MS["4h"])
    assert out["ts"].tolist() == [hour_ms(DAY)]
    assert out["open"].tolist() == frames[0].columns["open"].tolist()
    assert out["close"].tolist() == frames[1].columns["close"].tolist()
    assert out["volume"].tolist() == [0.1 + 0.1]


def test_assemble_refuses_inconsistent_input() -> None:
    with pytest.raises(ValueError, match="cannot assemble a tickers frame into a klines"):
        assemble("kline", [ticker_hour(DAY, 2)], 60_000)
    with pytest.raises(ValueError, match="given twice"):
        assemble("ticker", [ticker_hour(DAY, 2), ticker_hour(DAY, 2)], 1_000)
    with pytest.raises(ValueError, match="not a valid DataType"):
        assemble("klines", [], 60_000)
    with pytest.raises(ValueError, match="positive"):
        assemble("ticker", [], 0)
    late = HourFrame(DataKind.TICKERS, DAY, ticker_hour(DAY + timedelta(hours=1), 2).columns)
    with pytest.raises(ValueError, match="sorted"):
        assemble("ticker", [late, ticker_hour(DAY + timedelta(hours=1), 2)], 1_000)


# -- no look-ahead from a cadence finer than the source -------------------------------------


_SOURCE_WIDTHS = ["1s", "5s", "1m", "3m", "5m", "15m", "30m", "1h", "2h", "4h", "8h", "12h", "1d"]


@given(
    native=st.sampled_from(_SOURCE_WIDTHS),
    picks=st.lists(st.integers(0, 400), min_size=1, max_size=60, unique=True),
    start=st.integers(0, 10_000),
)
@settings(max_examples=200, deadline=None)
def test_no_accepted_cadence_closes_a_bar_before_its_source_bars_close(
    native: str, picks: list[int], start: int
) -> None:
    """For every source width and every cadence a prepare accepts over it, each output bar's
    close time is at or after the close of every source bar it contains."""
    width = CADENCE_MS[native]
    opens = np.array(sorted((start + i) * width for i in picks), dtype=np.int64)
    ones = np.ones(opens.size)
    for label in allowed_cadences("kline", width):
        cadence = CADENCE_MS[label]
        bars = aggregate_klines(opens, ones, ones, ones, ones, ones, cadence)
        close_ts = bars["ts"] + cadence - 1
        bucket_of = np.searchsorted(bars["ts"], opens, side="right") - 1
        assert bool(np.all(close_ts[bucket_of] >= opens + width - 1)), (native, label)
    refused = [label for label in KLINE_CADENCES if label not in allowed_cadences("kline", width)]
    for label in refused:  # the rule is tight: every refused label would look ahead somewhere
        cadence = CADENCE_MS[label]
        assert cadence < width or cadence % width != 0
