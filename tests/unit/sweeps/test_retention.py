"""Equity-curve retention: which trials keep their curve per equityCurve.mode."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from backtestd.errors import InvalidInput
from backtestd.sweeps import retention
from backtestd.sweeps.objective import Objective
from backtestd.sweeps.retention import CurveMode, retained_count, retained_rows

VALUES = np.array([5.0, 1.0, 9.0, 7.0, 3.0])
LIVE = np.array([False, False, False, True, False])  # row 3 aborted


def test_docstring_examples_run() -> None:
    assert doctest.testmod(retention).failed == 0


def test_top_n_keeps_the_best_non_aborted_rows() -> None:
    got = retained_rows(VALUES, LIVE, Objective.PNL, CurveMode.TOP_N, n=2)
    assert got.tolist() == [2, 0]
    assert retained_rows(VALUES, LIVE, Objective.MAXDD, CurveMode.TOP_N, n=2).tolist() == [1, 4]
    assert retained_rows(VALUES, LIVE, Objective.PNL, CurveMode.TOP_N, n=99).size == 4


def test_top_pct_rounds_up() -> None:
    assert retained_count(CurveMode.TOP_PCT, 4, max_pct=25.0) == 1
    assert retained_count(CurveMode.TOP_PCT, 4, max_pct=26.0) == 2
    assert retained_count(CurveMode.TOP_PCT, 4, max_pct=100.0) == 4
    assert retained_count(CurveMode.TOP_PCT, 3, max_pct=100 / 3) == 1


def test_auto_and_none() -> None:
    assert retained_rows(VALUES, LIVE, Objective.PNL, CurveMode.AUTO).tolist() == [2, 0, 4, 1]
    got = retained_rows(VALUES, LIVE, Objective.PNL, CurveMode.AUTO, auto_limit=1)
    assert got.tolist() == [2]
    assert retained_rows(VALUES, LIVE, Objective.PNL, CurveMode.NONE).size == 0


@pytest.mark.parametrize(
    ("mode", "n", "pct", "fragment"),
    [
        (CurveMode.TOP_N, None, None, "equityCurve.n must be a positive integer"),
        (CurveMode.TOP_N, 0, None, "positive integer"),
        (CurveMode.TOP_PCT, None, None, "equityCurve.maxPct"),
        (CurveMode.TOP_PCT, None, 0.0, "(0, 100]"),
        (CurveMode.TOP_PCT, None, 101.0, "(0, 100]"),
    ],
)
def test_bad_retention_is_rejected(mode, n, pct, fragment) -> None:
    with pytest.raises(InvalidInput) as err:
        retained_count(mode, 10, n=n, max_pct=pct)
    assert fragment in err.value.message
