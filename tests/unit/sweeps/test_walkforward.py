"""Walk-forward fold windows, winner picking and parameter drift."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.errors import InvalidInput
from backtestd.sweeps import walkforward
from backtestd.sweeps.objective import Objective
from backtestd.sweeps.walkforward import param_drift, pick_winner, split_folds


def test_docstring_examples_run() -> None:
    assert doctest.testmod(walkforward).failed == 0


@settings(max_examples=300, deadline=None)
@given(st.integers(50, 10**7), st.integers(2, 12), st.integers(1, 99))
def test_folds_roll_with_contiguous_out_of_sample_windows(steps: int, folds: int, pct: int) -> None:
    try:
        got = split_folds(steps, folds, pct)
    except InvalidInput:
        oos = steps * (100 - pct) // (pct + folds * (100 - pct))
        assert oos < 2 or steps - folds * oos < 2
        return
    assert [f.fold_ix for f in got] == list(range(folds))
    assert got[0].in_sample_from == 0
    assert got[-1].out_of_sample_to == steps
    lengths = {
        (f.in_sample_to - f.in_sample_from, f.out_of_sample_to - f.in_sample_to) for f in got
    }
    assert len(lengths) == 1  # every fold window has the same IS and OOS lengths
    ((ins, oos),) = lengths
    assert ins >= 2
    assert oos >= 2
    for a, b in zip(got, got[1:], strict=False):
        assert b.in_sample_to == a.out_of_sample_to  # OOS windows tile without gaps
        assert b.in_sample_from == a.in_sample_from + oos
    # the in-sample share is the requested percent, up to the rounding absorbed by IS
    assert ins / (ins + oos) >= pct / 100 - 1e-12
    denom = pct + folds * (100 - pct)
    assert oos * denom <= steps * (100 - pct) < (oos + 1) * denom  # oos = floor(ideal)
    assert ins * denom <= steps * pct + folds * denom  # IS absorbs at most F extra steps


def test_default_in_sample_share() -> None:
    got = split_folds(3000, 5)
    f = got[0]
    share = (f.in_sample_to - f.in_sample_from) / (f.out_of_sample_to - f.in_sample_from)
    assert share == pytest.approx(0.66, abs=0.01)


@pytest.mark.parametrize(
    ("steps", "folds", "pct", "fragment"),
    [
        (1000, 1, 66, "folds must be an integer from 2 to 12"),
        (1000, 13, 66, "from 2 to 12"),
        (1000, 4, 0, "inSamplePct must be an integer from 1 to 99"),
        (1000, 4, 100, "from 1 to 99"),
        (10, 12, 66, "too few for 12 walk-forward folds"),
    ],
)
def test_bad_walk_forward_is_rejected(steps: int, folds: int, pct: int, fragment: str) -> None:
    with pytest.raises(InvalidInput, match=fragment):
        split_folds(steps, folds, pct)


def test_server_maximum_folds_is_a_parameter() -> None:
    assert len(split_folds(10_000, 20, max_folds=20)) == 20


def test_pick_winner_skips_aborted_and_honours_maxdd() -> None:
    vals = np.array([3.0, 1.0, 2.0])
    assert pick_winner(vals, np.array([False, False, False]), Objective.SHARPE) == 0
    assert pick_winner(vals, np.array([True, False, False]), Objective.SHARPE) == 2
    assert pick_winner(vals, np.zeros(3, bool), Objective.MAXDD) == 1
    assert pick_winner(vals, np.ones(3, bool), Objective.SHARPE) is None


def test_param_drift() -> None:
    assert param_drift([[2, 1], [2, 1], [2, 1]], [5, 3]) == 0.0
    assert param_drift([[0], [4], [0]], [5]) == 1.0
    assert param_drift([[0, 0], [1, 0]], [5, 1]) == 0.25  # the 1-point axis does not count
    assert param_drift([[1]], [5]) is None  # one completed fold
    assert param_drift([[0], [0]], [1]) is None  # nothing can move
