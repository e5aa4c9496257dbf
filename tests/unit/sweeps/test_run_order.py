"""A shard runs its vectors in an order that keeps the engine host's indicator series cached
(``sweeps/run_order.py``): every vector exactly once, and far fewer series computed than in
``runIx`` order once an axis has more values than the cache holds."""

from __future__ import annotations

import itertools
from collections import OrderedDict

from hypothesis import given
from hypothesis import strategies as st

from backtestd.domain.sweeps import Params
from backtestd.sweeps.plan import Lattice
from backtestd.sweeps.run_order import run_order


def _grid(axes: list[Lattice]) -> list[Params]:
    names = [name for name, _ in axes]
    return [
        dict(zip(names, combo, strict=True)) for combo in itertools.product(*(v for _, v in axes))
    ]


def _series_computed(vectors: list[Params], order: list[int], capacity: int) -> int:
    """How many series an LRU cache of ``capacity`` series misses when each vector needs one
    series per axis value (an ``sma(fast)`` and an ``sma(slow)``, say), as the host's cache."""
    cache: OrderedDict[tuple[str, object], None] = OrderedDict()
    misses = 0
    for ix in order:
        for key in vectors[ix].items():
            if key in cache:
                cache.move_to_end(key)
                continue
            misses += 1
            cache[key] = None
            if len(cache) > capacity:
                cache.popitem(last=False)
    return misses


def test_the_issues_thousand_vector_grid_computes_each_series_about_once() -> None:
    """fast 5..50 step 5 x slow 20..200 step 2 (910 vectors), split in two shards as the API
    splits it, with a cache of 12 series (the sim's month of 1 s bars at a 96 MiB budget)."""
    axes: list[Lattice] = [("fast", tuple(range(5, 55, 5))), ("slow", tuple(range(20, 202, 2)))]
    vectors = _grid(axes)
    for shard in (range(0, 455), range(455, 910)):
        ordered = run_order(axes, vectors, shard)
        assert sorted(ordered) == list(shard)
        assert _series_computed(vectors, list(shard), 12) == 455 + 5  # runIx order: every slow one
        assert _series_computed(vectors, ordered, 12) == 91 + 5


def test_dense_data_with_four_cached_series_still_reuses_most() -> None:
    """A small cache (4 series: a month with a bar every second at a 96 MiB budget); a shard of
    the 100-vector grid."""
    axes: list[Lattice] = [("fast", tuple(range(5, 55, 5))), ("slow", tuple(range(20, 220, 20)))]
    vectors = _grid(axes)
    shard = range(0, 50)
    assert _series_computed(vectors, list(shard), 4) == 50 + 5
    # each slow series once; of the five fast ones, the two the cache lost since their last use
    assert _series_computed(vectors, run_order(axes, vectors, shard), 4) == 10 + 5 + 9 * 3


@given(
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    data=st.data(),
)
def test_every_vector_runs_once_and_neighbours_differ_in_one_step(
    sizes: list[int], data: st.DataObject
) -> None:
    axes: list[Lattice] = [
        (f"p{a}", tuple(range(100 * a, 100 * a + n))) for a, n in enumerate(sizes)
    ]
    vectors = _grid(axes)
    full = run_order(axes, vectors, range(len(vectors)))
    assert sorted(full) == list(range(len(vectors)))
    for a, b in itertools.pairwise(full):  # a full grid is walked as a serpentine
        steps = [abs(int(vectors[a][n]) - int(vectors[b][n])) for n, _ in axes]
        assert sum(steps) == 1
    subset = data.draw(st.lists(st.sampled_from(range(len(vectors))), unique=True))
    assert sorted(run_order(axes, vectors, subset)) == sorted(subset)


def test_categorical_and_repeated_values_keep_every_run_index() -> None:
    """Random and LHS samplers repeat lattice points under different ``runIx``."""
    axes: list[Lattice] = [("mode", ("fast", "slow")), ("n", (1, 2, 3))]
    vectors: list[Params] = [
        {"mode": "slow", "n": 2},
        {"mode": "fast", "n": 2},
        {"mode": "slow", "n": 2},
    ]
    assert sorted(run_order(axes, vectors, [0, 1, 2])) == [0, 1, 2]
    assert run_order(axes, vectors, [2, 0]) == [0, 2]
