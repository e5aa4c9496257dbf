"""Walk-forward folds: sequential windows of the prepared session, each split in-sample/out."""

from __future__ import annotations


def fold_windows(rows: int, folds: int, in_sample_pct: int) -> list[tuple[int, int, int]]:
    """``(inSampleFrom, inSampleTo, outOfSampleTo)`` row indices of each fold (ends exclusive).

    The session's rows are cut into ``folds`` consecutive windows of (nearly) equal length; the
    first ``in_sample_pct`` percent of each window is its in-sample part and the rest, right
    after it, its out-of-sample part.

    >>> fold_windows(100, 2, 60)
    [(0, 30, 50), (50, 80, 100)]
    """
    bounds = [k * rows // folds for k in range(folds + 1)]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        cut = lo + (hi - lo) * in_sample_pct // 100
        out.append((lo, cut, hi))
    return out
