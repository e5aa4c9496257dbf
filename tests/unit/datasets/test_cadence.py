"""Cadence discovery: grid detection with jitter, gaps in steps, rt fallback, chunk invariance."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.datasets.cadence import GRID, JITTER, CadenceAccumulator, discover

S = 1_000_000
T0 = 1_767_225_600 * S


def test_one_minute_grid_with_jitter_and_a_gap() -> None:
    minutes = np.array([0, 1, 2, 3, 7, 8, 9, 10, 11, 12], dtype=np.int64)
    jitter = np.array([0, 300_000, -200_000, 0, 0, 100_000, 0, 0, 0, 0], dtype=np.int64)
    report = discover(T0 + minutes * 60 * S + jitter)
    assert report.cadence == "1m"
    assert report.gaps == 1
    assert report.largest_gap_steps == 3  # minutes 4, 5 and 6 are missing


def test_irregular_ticks_are_rt_with_no_gaps() -> None:
    rng = np.random.default_rng(7)
    ts = T0 + np.cumsum(rng.integers(1, 900_000, size=500)).astype(np.int64)
    report = discover(ts)
    assert (report.cadence, report.gaps, report.largest_gap_steps) == ("rt", 0, 0)


def test_half_on_grid_is_enough_and_chunks_do_not_change_the_answer() -> None:
    steps = np.array([5, 5, 5, 5, 5, 7, 11, 13, 5, 20], dtype=np.int64) * S
    ts = T0 + np.concatenate(([0], np.cumsum(steps)))
    whole = discover(ts)
    assert whole.cadence == "5s"
    chunked = CadenceAccumulator()
    for part in np.array_split(ts, 4):
        chunked.add(part)
    assert chunked.report() == whole
    assert whole.gaps == 3  # 11, 13 and 20 s exceed 1.5 steps (7.5 s); 7 s does not
    assert whole.largest_gap_steps == 3  # 20 s spans four steps: three rows missing


def test_single_row_has_no_cadence() -> None:
    assert discover(np.array([T0], dtype=np.int64)).cadence == "rt"


def _numpy_reference(
    chunks: list[npt.NDArray[np.int64]],
) -> tuple[int, list[int], list[int], list[int]]:
    """The accumulator as it was before the compiled tally: four numpy passes per grid step."""
    intervals = 0
    on_step, gaps, largest = [0] * len(GRID), [0] * len(GRID), [0] * len(GRID)
    last: int | None = None
    for chunk in chunks:
        if chunk.size == 0:
            continue
        ts = chunk if last is None else np.concatenate(([last], chunk))
        last = int(ts[-1])
        diffs = np.diff(ts)
        intervals += int(diffs.size)
        for i, (_, seconds) in enumerate(GRID):
            step = seconds * S
            on_step[i] += int(np.count_nonzero(np.abs(diffs - step) <= step * JITTER))
            long = diffs[diffs > step * 1.5]
            if long.size:
                gaps[i] += int(long.size)
                largest[i] = max(largest[i], int(np.rint(long.max() / step)) - 1)
    return intervals, on_step, gaps, largest


_INTERVALS = st.one_of(
    st.sampled_from([seconds * S for _, seconds in GRID]),
    st.sampled_from([seconds * S for _, seconds in GRID]).map(lambda s: s + s // 50),  # edge
    st.sampled_from([seconds * S for _, seconds in GRID]).map(lambda s: s + s // 50 + 1),
    st.sampled_from([seconds * S for _, seconds in GRID]).map(lambda s: s - s // 50),
    st.sampled_from([seconds * S for _, seconds in GRID]).map(lambda s: s - s // 50 - 1),
    st.sampled_from([seconds * S for _, seconds in GRID]).map(lambda s: s * 3 // 2),
    st.sampled_from([seconds * S for _, seconds in GRID]).map(lambda s: s * 3 // 2 + 1),
    st.integers(1, 3 * 86_400 * S),
)


@given(
    intervals=st.lists(_INTERVALS, min_size=0, max_size=300),
    cuts=st.lists(st.integers(0, 300), max_size=4),
)
@settings(max_examples=500, deadline=None)
def test_compiled_tally_matches_the_numpy_passes_for_any_chunking(
    intervals: list[int], cuts: list[int]
) -> None:
    ts = T0 + np.concatenate(([0], np.cumsum(np.array(intervals, dtype=np.int64))))
    chunks = np.split(ts, sorted(c for c in cuts if c <= ts.size))
    accumulator = CadenceAccumulator()
    for chunk in chunks:
        accumulator.add(chunk)
    count, on_step, gaps, largest = _numpy_reference(chunks)
    report = accumulator.report()
    expected = next(
        (
            (label, gaps[i], largest[i])
            for i, (label, _) in enumerate(GRID)
            if count and 2 * on_step[i] >= count
        ),
        ("rt", 0, 0),
    )
    assert (report.cadence, report.gaps, report.largest_gap_steps) == expected
