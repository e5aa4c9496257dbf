"""Cadence discovery: grid detection with jitter, gaps in steps, rt fallback, chunk invariance."""

from __future__ import annotations

import numpy as np

from backtestd.datasets.cadence import CadenceAccumulator, discover

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
