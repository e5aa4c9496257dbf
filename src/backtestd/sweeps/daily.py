"""Daily returns of an equity series: the per-period returns DSR and PBO are computed from."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

DAY_MS = 86_400_000


def daily_returns(equity_ts: npt.NDArray[np.int64], equity: npt.NDArray[np.float64]) -> list[float]:
    """Returns between consecutive UTC day ends (equity at the last point at or before each).

    The first reference is the first point; a partial last day counts as a day.

    >>> ts = np.array([0, 43_200_000, 86_400_000, 172_800_000], dtype=np.int64)
    >>> daily_returns(ts, np.array([100.0, 105.0, 110.0, 99.0]))
    [0.1, -0.1]
    """
    if equity_ts.shape[0] < 2:
        return []
    first_day = int(equity_ts[0]) // DAY_MS
    last_day = -(-int(equity_ts[-1]) // DAY_MS)
    ends = np.arange(first_day + 1, last_day + 1, dtype=np.int64) * DAY_MS
    idx = np.searchsorted(equity_ts, ends, side="right") - 1
    values = np.concatenate(([equity[0]], equity[np.clip(idx, 0, None)]))
    prev = values[:-1]
    out = np.zeros(prev.shape, dtype=np.float64)
    np.divide(values[1:] - prev, prev, out=out, where=prev > 0)
    return [round(float(r), 15) for r in out]
