"""Equity curve: points from a run, extrema-preserving resampling, delta encoding, and the
wire shape the API gives the shaped curve."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.api.schemas.backtests import EquityCurveResult
from backtestd.domain.equity import EquityCurveMeta, OutMode
from backtestd.engine import equity_curve
from backtestd.engine.equity_curve import (
    build_equity_curve,
    differential,
    equity_points,
    resample,
    transform,
)
from backtestd.engine.portfolio import PortfolioConfig, simulate


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(equity_curve)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_equity_points_anchor_at_from_then_one_point_per_trade() -> None:
    ts = np.array([1_000, 2_000, 3_000, 4_000], dtype=np.int64)
    result = simulate(
        ts,
        np.array([1, -1, 1, -1], dtype=np.int8),
        np.array([10.0, 12.0, 12.0, 9.0]),
        ts,
        np.array([10.0, 12.0, 12.0, 9.0]),
        from_ms=500,
        to_ms=5_000,
        grid_step_ms=1_000,
        config=PortfolioConfig(buy_fee_rate=0.0, sell_fee_rate=0.0),
    )
    out_ts, out_eq = equity_points(result)
    # 100 -> 10 base -> 120 -> 10 base -> 90
    assert out_ts.tolist() == [500, 2_000, 4_000]
    assert out_eq.tolist() == [100.0, 120.0, 90.0]
    assert out_ts.dtype == np.int64
    assert out_eq.dtype == np.float64


def test_equity_points_without_trades_hold_only_the_anchor() -> None:
    e = np.array([], dtype=np.int64)
    result = simulate(
        e,
        e.astype(np.int8),
        e.astype(np.float64),
        e,
        e.astype(np.float64),
        from_ms=0,
        to_ms=10,
        grid_step_ms=5,
    )
    assert [a.tolist() for a in equity_points(result)] == [[0], [100.0]]


curves = st.lists(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
    min_size=0,
    max_size=300,
)


@settings(max_examples=300, deadline=None)
@given(values=curves, max_points=st.integers(2, 60))
def test_resample_keeps_ends_and_extremes_within_the_budget(
    values: list[float], max_points: int
) -> None:
    eq = np.array(values, dtype=np.float64)
    ts = np.arange(eq.shape[0], dtype=np.int64) * 7 + 3
    out_ts, out_eq = resample(ts, eq, max_points)
    n = eq.shape[0]
    if n <= max_points:
        assert out_ts.tolist() == ts.tolist()
        assert out_eq.tolist() == eq.tolist()
        return
    assert out_ts.shape[0] <= max_points
    # a subsequence of the input, in time order, with each value at its own timestamp
    idx = (out_ts - 3) // 7
    assert np.all(np.diff(idx) > 0)
    assert out_eq.tolist() == eq[idx].tolist()
    assert (idx[0], idx[-1]) == (0, n - 1)
    if max_points >= 3:  # two points hold only the ends
        assert int(np.argmax(eq)) in idx
    if max_points >= 4:
        assert int(np.argmin(eq)) in idx
        # each of the (max_points - 2) // 2 buckets gives at least one point
        assert out_ts.shape[0] >= 2 + (max_points - 2) // 2


def test_resample_is_deterministic_and_picks_bucket_extremes() -> None:
    eq = np.array([0.0, 5.0, 1.0, 3.0, 9.0, 2.0, 4.0, 8.0, -1.0, 6.0, 7.0, 3.0])
    ts = np.arange(12, dtype=np.int64)
    a = resample(ts, eq, 6)
    b = resample(ts, eq, 6)
    # interior 1..10 in two buckets, 1..5 and 6..10: (min 1.0 @2, max 9.0 @4), (min -1 @8, max 8 @7)
    assert a[0].tolist() == [0, 2, 4, 7, 8, 11]
    assert a[0].tolist() == b[0].tolist()


@pytest.mark.parametrize(
    ("max_points", "expected"),
    [(2, [0, 5]), (3, [0, 2, 5])],
)
def test_tiny_budgets_keep_ends_then_the_maximum(max_points: int, expected: list[int]) -> None:
    eq = np.array([1.0, 2.0, 9.0, 0.0, 3.0, 4.0])
    out_ts, _ = resample(np.arange(6, dtype=np.int64), eq, max_points)
    assert out_ts.tolist() == expected


def test_resample_rejects_a_budget_below_two() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        resample(np.arange(3, dtype=np.int64), np.zeros(3), 1)


@settings(max_examples=100, deadline=None)
@given(values=curves)
def test_differential_round_trips(values: list[float]) -> None:
    eq = np.array(values, dtype=np.float64)
    ts = np.cumsum(np.arange(eq.shape[0], dtype=np.int64)) + 1_000
    d_ts, d_eq = differential(ts, eq)
    assert np.cumsum(d_ts).tolist() == ts.tolist()
    assert np.cumsum(d_eq) == pytest.approx(eq, abs=1e-6)


def test_transform_meta_reports_what_was_done() -> None:
    ts = np.arange(10, dtype=np.int64)
    eq = np.arange(10, dtype=np.float64)
    _, _, meta = transform(ts, eq, resample_to=4, delta=True, out_mode=OutMode.SHORT)
    assert meta == EquityCurveMeta(10, 4, True, True, OutMode.SHORT)
    _, _, same = transform(ts, eq, resample_to=10)
    assert (same.resampled, same.output_point_count) == (False, 10)
    _, _, forced = transform(ts, eq, force_short_above=5)
    assert forced.out_mode is OutMode.SHORT


def _wire(shaped: object) -> dict[str, object]:
    return EquityCurveResult.of(shaped).model_dump(exclude_none=True)  # type: ignore[arg-type]


def test_differential_is_false_on_a_single_point_even_if_asked() -> None:
    body = _wire(build_equity_curve(np.array([0]), np.array([100.0]), delta=True))
    assert body["meta"] == {
        "inputPointCount": 1,
        "outputPointCount": 1,
        "resampled": False,
        "differential": False,
        "outMode": "ARRAY",
    }
    assert body["points"] == [{"timestamp": 0, "equity": 100.0}]


def test_build_equity_curve_resamples_then_encodes_then_shapes() -> None:
    ts = np.array([0, 10, 20, 30, 40], dtype=np.int64)
    eq = np.array([100.0, 104.0, 101.0, 97.0, 102.0])
    shaped = build_equity_curve(ts, eq, resample_to=4, delta=True, out_mode=OutMode.SHORT)
    assert all(type(t) is int for t in shaped.timestamps)
    body = _wire(shaped)
    # resampled to 0, 10 (max), 30 (min), 40; then delta-encoded
    assert body == {
        "timestamps": [0, 10, 20, 10],
        "equities": [100.0, 4.0, -7.0, 5.0],
        "meta": {
            "inputPointCount": 5,
            "outputPointCount": 4,
            "resampled": True,
            "differential": True,
            "outMode": "SHORT",
        },
    }
    json.dumps(body, allow_nan=False)


def test_array_shape_lists_point_objects() -> None:
    body = _wire(build_equity_curve(np.array([5, 9], dtype=np.int64), np.array([1.0, 2.5])))
    assert body["points"] == [{"timestamp": 5, "equity": 1.0}, {"timestamp": 9, "equity": 2.5}]
    assert set(body) == {"points", "meta"}
