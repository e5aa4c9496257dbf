"""Which trials keep their equity curve (``equityCurve.mode`` of a sweep request).

Curves are chosen among the non-aborted rows in **raw order of the sweep's objective** (best
first, ties by ``runIx``): a retained curve should not depend on the ranking view a reader asks
for later.

- ``none``: no curve.
- ``topN``: the best ``n`` rows (``n >= 1``).
- ``topPct``: the best ``ceil(maxPct / 100 * rows)`` rows (``0 < maxPct <= 100``).
- ``auto`` (default): every row while their number is within the server's ``auto_limit``,
  else the best ``auto_limit`` rows.
"""

from __future__ import annotations

import enum
import math

import numpy as np
import numpy.typing as npt

from backtestd.errors import InvalidInput
from backtestd.sweeps.objective import Objective
from backtestd.sweeps.ranking import raw_order

DEFAULT_AUTO_LIMIT = 1000


class CurveMode(enum.StrEnum):
    AUTO = "auto"
    NONE = "none"
    TOP_N = "topN"
    TOP_PCT = "topPct"


def check_curve_mode(mode: CurveMode, n: int | None, max_pct: float | None) -> None:
    """400 for ``topN`` without a positive ``n`` or ``topPct`` without ``maxPct`` in (0, 100].

    >>> check_curve_mode(CurveMode.TOP_N, 5, None)
    """
    if mode is CurveMode.TOP_N and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise InvalidInput(f"equityCurve.n must be a positive integer with mode topN, got {n!r}")
    if mode is CurveMode.TOP_PCT and (
        max_pct is None or isinstance(max_pct, bool) or not 0 < max_pct <= 100
    ):
        raise InvalidInput(
            f"equityCurve.maxPct must be a number in (0, 100] with mode topPct, got {max_pct!r}"
        )


def retained_count(
    mode: CurveMode,
    rows: int,
    *,
    n: int | None = None,
    max_pct: float | None = None,
    auto_limit: int = DEFAULT_AUTO_LIMIT,
) -> int:
    """How many of ``rows`` non-aborted rows keep their curve.

    >>> retained_count(CurveMode.TOP_PCT, 30, max_pct=10.0), retained_count(CurveMode.AUTO, 30)
    (3, 30)
    """
    check_curve_mode(mode, n, max_pct)
    if mode is CurveMode.NONE:
        return 0
    if mode is CurveMode.TOP_N:
        assert n is not None
        return min(n, rows)
    if mode is CurveMode.TOP_PCT:
        assert max_pct is not None
        return min(rows, math.ceil(max_pct / 100.0 * rows - 1e-9))
    return min(rows, auto_limit)


def retained_rows(
    values: npt.NDArray[np.float64],
    aborted: npt.NDArray[np.bool_],
    objective: Objective,
    mode: CurveMode,
    *,
    n: int | None = None,
    max_pct: float | None = None,
    auto_limit: int = DEFAULT_AUTO_LIMIT,
) -> npt.NDArray[np.int64]:
    """Row positions whose curve is kept, best first.

    >>> retained_rows(np.array([1.0, 3.0, 2.0]), np.zeros(3, bool), Objective.SHARPE,
    ...               CurveMode.TOP_N, n=2).tolist()
    [1, 2]
    """
    order = raw_order(values, aborted, objective)
    count = retained_count(mode, int(order.size), n=n, max_pct=max_pct, auto_limit=auto_limit)
    return order[:count]
