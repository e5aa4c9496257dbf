"""Sweep axes: drift-free ranges, value lists, coercion to declared types, named errors."""

from __future__ import annotations

import doctest
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.errors import InvalidInput, InvalidSweepAxis
from backtestd.sweeps import axes
from backtestd.sweeps.axes import Axis, PropertyType, build_axes, coerce_value, vector

INT, DOUBLE, BOOL = PropertyType.INT, PropertyType.DOUBLE, PropertyType.BOOLEAN


def test_docstring_examples_run() -> None:
    assert doctest.testmod(axes).failed == 0


def test_range_of_tenths_hits_point_three_exactly_and_keeps_the_end() -> None:
    axis = Axis.from_wire("k", {"from": 0, "to": 0.3, "step": 0.1}, DOUBLE)
    assert axis.values() == [0.0, 0.1, 0.2, 0.3]
    assert axis.values()[-1] == 0.3  # not 0.30000000000000004


def test_range_that_float_arithmetic_would_lose_the_last_point_of_keeps_it() -> None:
    # 0.1 * 7 accumulated in floats is 0.7000000000000001 > 0.7, dropping the endpoint.
    axis = Axis.from_wire("k", {"from": 0.1, "to": 0.7, "step": 0.1}, DOUBLE)
    assert axis.values() == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(-1000, 1000),
    st.integers(1, 500),
    st.integers(0, 60),
    st.sampled_from([1, 10, 100, 1000]),
)
def test_range_equals_exact_rational_lattice(start: int, step: int, count: int, scale: int) -> None:
    lo, st_, hi = start / scale, step / scale, (start + step * count) / scale
    axis = Axis.from_wire("k", {"from": lo, "to": hi, "step": st_}, DOUBLE)
    expected = [float(Fraction(start + step * i, scale)) for i in range(count + 1)]
    assert axis.values() == expected


def test_int_range_gives_ints_and_the_issue_grid() -> None:
    fast = Axis.from_wire("fast", {"from": 5, "to": 50, "step": 5}, INT)
    slow = Axis.from_wire("slow", {"from": 20, "to": 200, "step": 20}, INT)
    assert fast.values() == [5, 10, 15, 20, 25, 30, 35, 40, 45, 50]
    assert all(type(v) is int for v in fast.values())
    assert fast.size * slow.size == 100


def test_range_ending_between_points_stops_at_the_last_point_inside() -> None:
    assert Axis.from_wire("n", {"from": 1, "to": 10.5, "step": 3}, INT).values() == [1, 4, 7, 10]


def test_huge_range_is_not_materialised() -> None:
    axis = Axis.from_wire("k", {"from": 0, "to": 1e12, "step": 1}, PropertyType.LONG)
    assert axis.size == 10**12 + 1
    assert axis.value(10**12) == 10**12


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"from": 1, "to": 10, "step": 0.5}, "whole numbers"),
        ({"from": 1.5, "to": 10, "step": 1}, "whole numbers"),
        ({"from": 1, "to": 10, "step": 0}, "'step' must be > 0"),
        ({"from": 1, "to": 10, "step": -1}, "'step' must be > 0"),
        ({"from": 10, "to": 1, "step": 1}, "must not exceed"),
        ({"from": 1, "to": 10, "step": True}, "must be a number"),
        ({"from": 1, "to": 2**40, "step": 2**39}, "outside the int range"),
        ({"values": [1, 2.5]}, "not a whole number"),
        ({"values": [1, True]}, "is a boolean"),
        ({"values": []}, "non-empty list"),
        ({"values": [3, 3.0]}, "listed twice"),
        ({"from": 1, "to": 2}, "got keys"),
        ({"values": ["a"]}, "not a number or a boolean"),
        ({"from": 0, "to": 1e300, "step": 1e-300}, "at most 9007199254740992"),
    ],
)
def test_bad_int_axis_is_rejected_naming_the_property(raw: dict, fragment: str) -> None:
    with pytest.raises(InvalidSweepAxis) as err:
        Axis.from_wire("fast", raw, INT)
    assert fragment in err.value.message
    assert "'fast'" in err.value.message
    assert err.value.param == "fast"
    assert isinstance(err.value, InvalidInput)  # maps to 400


def test_boolean_for_a_double_property_is_rejected() -> None:
    with pytest.raises(InvalidSweepAxis, match="'k'.*boolean.*double"):
        Axis.from_wire("k", {"values": [0.5, False]}, DOUBLE)


def test_boolean_property_takes_only_booleans_and_no_range() -> None:
    assert Axis.from_wire("on", {"values": [False, True]}, BOOL).values() == [False, True]
    with pytest.raises(InvalidSweepAxis, match="not a boolean"):
        Axis.from_wire("on", {"values": [0, 1]}, BOOL)
    with pytest.raises(InvalidSweepAxis, match="range cannot sweep it"):
        Axis.from_wire("on", {"from": 0, "to": 1, "step": 1}, BOOL)


def test_coercion_per_type() -> None:
    assert coerce_value("p", INT, 9.0) == 9
    assert type(coerce_value("p", INT, 9.0)) is int
    assert type(coerce_value("p", DOUBLE, 2)) is float
    assert coerce_value("p", PropertyType.STRING, 2.0) == "2"
    assert coerce_value("p", PropertyType.STRING, True) == "true"
    assert coerce_value("p", None, 9.0) == 9
    text = Axis.from_wire("s", {"from": 0, "to": 0.2, "step": 0.1}, PropertyType.STRING)
    assert text.values() == ["0", "0.1", "0.2"]
    with pytest.raises(InvalidSweepAxis, match="byte range"):
        coerce_value("p", PropertyType.BYTE, 128)
    with pytest.raises(InvalidSweepAxis, match="out of range for a float"):
        coerce_value("p", PropertyType.FLOAT, 1e39)
    with pytest.raises(InvalidSweepAxis, match="cannot vary"):
        coerce_value("p", PropertyType.ENUM, 1)


def test_java_type_names_map_to_property_types() -> None:
    assert PropertyType.from_java("java.lang.Long") is PropertyType.LONG
    assert PropertyType.from_java("boolean") is BOOL
    assert PropertyType.from_java("java.math.BigDecimal") is PropertyType.BIG_DECIMAL
    assert PropertyType.from_java("com.x.Mode") is PropertyType.ENUM
    assert PropertyType.from_java(None) is None


def test_undeclared_key_lists_the_declared_names() -> None:
    with pytest.raises(InvalidSweepAxis) as err:
        build_axes({"fats": {"values": [1]}}, {"fast": INT, "slow": INT})
    assert "'fats'" in err.value.message
    assert "fast, slow" in err.value.message
    assert err.value.declared == ("fast", "slow")


def test_empty_params_is_rejected() -> None:
    with pytest.raises(InvalidSweepAxis, match="at least one declared property"):
        build_axes({}, {"fast": INT})


def test_axes_are_sorted_by_name_and_vectors_follow() -> None:
    built = build_axes(
        {"slow": {"values": [100, 200]}, "fast": {"values": [5]}}, {"fast": INT, "slow": INT}
    )
    assert [a.name for a in built] == ["fast", "slow"]
    assert vector(built, [0, 1]) == {"fast": 5, "slow": 200}


def test_value_order_ranks_of_an_unsorted_list() -> None:
    axis = Axis.from_wire("x", {"values": [0.5, -1, 2, 0]}, DOUBLE)
    assert axis.order_ranks() == [2, 0, 3, 1]
    assert Axis.from_wire("b", {"values": [True, False]}, BOOL).order_ranks() == [1, 0]


def test_value_at_rank_inverts_order_ranks() -> None:
    axis = Axis.from_wire("x", {"values": [0.5, -1, 2, 0]}, DOUBLE)
    ranks = axis.order_ranks()
    assert [axis.value_at_rank(ranks[i]) for i in range(axis.size)] == axis.values()


def test_axis_errors_answer_400() -> None:
    from backtestd.api.errors import _status_for

    assert _status_for(InvalidSweepAxis("bad", param="fast")) == 400
