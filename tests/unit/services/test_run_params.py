"""An execute's ``params`` against the declared properties: undeclared keys are a 400 naming
the declared ones, and values are written in the declared type before the job id is taken."""

from __future__ import annotations

from typing import Any

import pytest

from backtestd.domain.canonical import canonical_json
from backtestd.domain.strategies import PropertySpec
from backtestd.errors import InvalidInput
from backtestd.services.run_params import canonical_params, undeclared_params

DECLARED = (
    PropertySpec("fast", "", "9", True, type="int"),
    PropertySpec("slow", "", "21", True, type="java.lang.Long"),
    PropertySpec("scale", "", "1.0", True, type="double"),
    PropertySpec("flag", "", "false", True, type="boolean"),
    PropertySpec("label", "", "x", True, type="java.lang.String"),
    PropertySpec("legacy", "", None, True, type=None),
)


def test_an_undeclared_key_is_worded_naming_the_declared_ones_and_the_likely_one() -> None:
    message = undeclared_params({"fast": 3, "fastt": "20"}, DECLARED, "s1")
    assert message is not None
    assert message.startswith("params.fastt is not a declared property of strategy s1")
    assert "declared: fast, flag, label, legacy, scale, slow" in message
    assert "did you mean 'fast'?" in message
    assert "GET /v1/strategy/s1" in message
    assert undeclared_params({"fast": 3}, DECLARED, "s1") is None


def test_a_strategy_without_properties_says_none_are_declared() -> None:
    message = undeclared_params({"x": 1}, (), "s2")
    assert message is not None
    assert "declared: none" in message


@pytest.mark.parametrize(
    ("spelled", "canonical"),
    [
        ({"fast": "20"}, {"fast": 20}),
        ({"fast": 20.0}, {"fast": 20}),
        ({"fast": " 20 "}, {"fast": 20}),
        ({"slow": "1e2"}, {"slow": 100}),
        ({"scale": "0.5"}, {"scale": 0.5}),
        ({"scale": 2}, {"scale": 2.0}),
        ({"flag": "true"}, {"flag": True}),
        ({"flag": "FALSE"}, {"flag": False}),
        ({"label": 7}, {"label": 7}),  # a String property keeps what it was given
        ({"legacy": "7"}, {"legacy": "7"}),  # no recorded type: as sent
    ],
)
def test_values_are_written_in_the_declared_type(
    spelled: dict[str, Any], canonical: dict[str, Any]
) -> None:
    assert canonical_params(spelled, DECLARED) == canonical


def test_canonical_requests_digest_as_before() -> None:
    """Values already in their type are unchanged, so ids of existing requests stay."""
    before = {"fast": 9, "scale": 0.25, "flag": True, "label": "a"}
    assert canonical_json(canonical_params(before, DECLARED)) == canonical_json(before)
    assert canonical_json(canonical_params({"scale": 9}, DECLARED)) == canonical_json({"scale": 9})


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        (
            {"fast": "2.5"},
            "params.fast: '2.5' is not a whole number, but the property is declared as int",
        ),
        ({"fast": "nine"}, "params.fast: 'nine' is not a number"),
        ({"fast": True}, "params.fast: true is a boolean"),
        ({"fast": 2**31}, "params.fast: 2147483648 is outside the range of int"),
        ({"scale": "nan"}, "params.scale: the value must be a finite number"),
        ({"scale": 10**400}, "params.scale: " + str(10**400) + " is beyond the range of double"),
        ({"flag": 1}, "params.flag: 1 is not true or false"),
        ({"flag": "yes"}, "params.flag: 'yes' is not true or false"),
    ],
)
def test_values_the_type_cannot_hold_are_refused_naming_the_param(
    params: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(InvalidInput) as caught:
        canonical_params(params, DECLARED)
    assert fragment in str(caught.value)
