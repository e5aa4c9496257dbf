"""Samplers: grid expansion order, random distinctness, LHS stratification, seeds."""

from __future__ import annotations

import bisect
import doctest
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.errors import InvalidInput
from backtestd.sweeps import samplers
from backtestd.sweeps.samplers import (
    MAX_SEED,
    Sampler,
    check_seed,
    draw_seed,
    grid_indices,
    grid_run_index,
    grid_size,
    lhs_indices,
    random_indices,
    sample_indices,
)

sizes_st = st.lists(st.integers(1, 6), min_size=1, max_size=4)


def test_docstring_examples_run() -> None:
    assert doctest.testmod(samplers).failed == 0


@settings(max_examples=100, deadline=None)
@given(sizes_st)
def test_grid_is_the_cartesian_product_in_first_axis_slowest_order(sizes: list[int]) -> None:
    got = grid_indices(sizes)
    assert got.shape == (grid_size(sizes), len(sizes))
    expected = list(itertools.product(*(range(s) for s in sizes)))  # first axis slowest
    assert [tuple(r) for r in got.tolist()] == expected
    assert grid_run_index(sizes, got).tolist() == list(range(len(expected)))


@settings(max_examples=50, deadline=None)
@given(sizes_st, st.data())
def test_grid_slice_matches_the_full_expansion(sizes: list[int], data: st.DataObject) -> None:
    total = grid_size(sizes)
    start = data.draw(st.integers(0, total))
    stop = data.draw(st.integers(start, total))
    assert np.array_equal(grid_indices(sizes, start, stop), grid_indices(sizes)[start:stop])


@settings(max_examples=100, deadline=None)
@given(sizes_st, st.integers(0, MAX_SEED), st.data())
def test_random_gives_distinct_lattice_vectors_reproducibly(
    sizes: list[int], seed: int, data: st.DataObject
) -> None:
    n = data.draw(st.integers(1, grid_size(sizes)))
    a = random_indices(sizes, n, seed)
    assert a.shape == (n, len(sizes))
    assert len({tuple(r) for r in a.tolist()}) == n
    assert bool(np.all((a >= 0) & (a < np.array(sizes))))
    assert np.array_equal(a, random_indices(sizes, n, seed))


def test_random_seeds_differ_and_cover_the_lattice_uniformly() -> None:
    assert not np.array_equal(random_indices([50, 50], 20, 1), random_indices([50, 50], 20, 2))
    counts = np.zeros(10)
    for seed in range(400):
        for i in random_indices([10], 3, seed)[:, 0]:
            counts[i] += 1
    assert counts.min() > 80
    assert counts.max() < 160


def test_random_over_a_lattice_beyond_int64_still_draws_distinct_vectors() -> None:
    sizes = [10**10, 10**10, 10**10]
    got = random_indices(sizes, 5, 11)
    assert len({tuple(r) for r in got.tolist()}) == 5
    assert np.array_equal(got, random_indices(sizes, 5, 11))


def test_random_samples_over_the_lattice_size_is_rejected() -> None:
    with pytest.raises(InvalidInput, match="exceeds the 6 distinct vectors"):
        random_indices([2, 3], 7, 0)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(1, 40), min_size=1, max_size=4),
    st.integers(1, 40),
    st.integers(0, MAX_SEED),
)
def test_lhs_hits_every_stratum_of_every_axis_once(sizes: list[int], n: int, seed: int) -> None:
    got = lhs_indices(sizes, n, seed)
    assert got.shape == (n, len(sizes))
    assert np.array_equal(got, lhs_indices(sizes, n, seed))
    for j, m in enumerate(sizes):
        col = got[:, j]
        assert bool(np.all((col >= 0) & (col < m)))
        if n <= m:
            # stratum k of the index range is [floor(k m / n), floor((k+1) m / n))
            bounds = [(k * m) // n for k in range(n + 1)]
            strata = sorted(int(np.searchsorted(bounds, i, side="right")) - 1 for i in col)
            assert strata == list(range(n))
        else:
            counts = np.bincount(col, minlength=m)
            assert counts.min() >= n // m - 1
            assert counts.max() <= -(-n // m) + 1


def test_lhs_depends_on_the_seed() -> None:
    assert not np.array_equal(lhs_indices([100, 100], 10, 1), lhs_indices([100, 100], 10, 2))


def test_sample_indices_dispatch_and_samples_required() -> None:
    assert sample_indices(Sampler.GRID, [3, 2], samples=None, seed=0).shape == (6, 2)
    assert sample_indices(Sampler.LHS, [30, 30], samples=7, seed=5).shape == (7, 2)
    with pytest.raises(InvalidInput, match="samples is required"):
        sample_indices(Sampler.RANDOM, [3], samples=None, seed=0)
    with pytest.raises(InvalidInput, match="positive integer"):
        sample_indices(Sampler.LHS, [3], samples=0, seed=0)


def test_server_seed_is_javascript_safe_and_checked() -> None:
    assert all(0 <= draw_seed() <= 2**53 - 1 for _ in range(100))
    assert check_seed(2**53 - 1) == 2**53 - 1
    for bad in (-1, 2**53, 1.5, True):
        with pytest.raises(InvalidInput, match="JavaScript-safe"):
            check_seed(bad)  # type: ignore[arg-type]


def test_lhs_on_a_lattice_of_two_to_the_53_points_stays_stratified() -> None:
    m, n = 2**53, 1000
    col = lhs_indices([m], n, 9)[:, 0]
    assert bool(np.all((col >= 0) & (col < m)))
    bounds = [k * m // n for k in range(n + 1)]  # exact Python integers
    strata = sorted(bisect.bisect_right(bounds, i) - 1 for i in col.tolist())
    assert strata == list(range(n))
