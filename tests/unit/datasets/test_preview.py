"""The preview kernel against a brute-force reading of its rule."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from backtestd.datasets import preview
from backtestd.datasets.preview import downsample_extrema


def test_a_short_series_comes_back_unchanged() -> None:
    ts = np.arange(10, dtype=np.int64)
    values = np.linspace(0, 1, 10)
    out_ts, out_values = downsample_extrema(ts, values, 5)
    assert out_ts is ts
    assert out_values is values


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_run_keeps_its_first_lowest_highest_and_last_row(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, buckets = 10_007, 37
    ts = np.cumsum(rng.integers(1, 5, n)).astype(np.int64)
    values = rng.normal(size=n).cumsum()
    out_ts, out_values = downsample_extrema(ts, values, buckets)
    expected: list[int] = []
    bounds = [int(b) for b in np.linspace(0, n, buckets + 1)]
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        run = list(values[lo:hi])
        picks = {lo, lo + run.index(min(run)), lo + run.index(max(run)), hi - 1}
        expected.extend(sorted(picks))
    assert out_ts.tolist() == [int(ts[i]) for i in expected]
    assert out_values.tolist() == [float(values[i]) for i in expected]
    assert out_values.max() == values.max()
    assert out_values.min() == values.min()
    assert len(out_ts) <= 4 * buckets
    assert np.all(np.diff(out_ts) > 0)


def test_zero_buckets_is_refused() -> None:
    with pytest.raises(ValueError, match="buckets"):
        downsample_extrema(np.arange(3, dtype=np.int64), np.zeros(3), 0)


def test_docstring_example() -> None:
    assert doctest.testmod(preview).attempted > 0
    assert doctest.testmod(preview).failed == 0
