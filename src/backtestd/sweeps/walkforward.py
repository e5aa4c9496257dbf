"""Walk-forward folds: rolling in-sample / out-of-sample windows over a prepared session.

The classic rolling walk-forward (Pardo; the scheme of AmiBroker's, MultiCharts' and
TradeStation's walk-forward optimisers): ``F`` equally long fold windows, each an in-sample (IS)
part of ``inSamplePct`` percent followed by an out-of-sample (OOS) part; each next window starts
one OOS length later, so the OOS parts tile the end of the session without gaps or overlap and
form one continuous out-of-sample record. Over ``T`` steps (indices into the prepared session)::

    oos = floor(T * (100 - p) / (p + F * (100 - p)))
    is  = T - F * oos                       (>= the p share; it absorbs the rounding)
    fold k: IS = [k * oos, k * oos + is), OOS = [k * oos + is, (k + 1) * oos + is)

so the last OOS ends exactly at ``T``. Both parts must hold at least ``MIN_WINDOW`` steps.

``paramDrift``: the mean, over consecutive completed folds and over axes with more than one
point, of ``|rank_k - rank_(k-1)| / (size - 1)`` where ``rank`` is the winner's position on the
axis in value order. 0 = the same winner every fold, 1 = jumping between the axis ends. Absent
(None) with fewer than two completed folds or no axis with two points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from backtestd.errors import InvalidInput
from backtestd.sweeps.objective import Objective
from backtestd.sweeps.ranking import raw_order

DEFAULT_IN_SAMPLE_PCT = 66
MIN_FOLDS = 2
MIN_WINDOW = 2  # steps; a Sharpe needs two returns


@dataclass(frozen=True)
class Fold:
    """One fold's windows, half-open index ranges into the prepared session."""

    fold_ix: int
    in_sample_from: int
    in_sample_to: int  # exclusive; also the first out-of-sample index
    out_of_sample_to: int  # exclusive

    def window_fields(self) -> dict[str, int]:
        """The index fields of a ``WalkForwardFold`` (wire names).

        >>> Fold(1, 18, 46, 64).window_fields()["outOfSampleTo"]
        64
        """
        return {
            "foldIx": self.fold_ix,
            "inSampleFrom": self.in_sample_from,
            "inSampleTo": self.in_sample_to,
            "outOfSampleTo": self.out_of_sample_to,
        }


def split_folds(
    steps: int, folds: int, in_sample_pct: int = DEFAULT_IN_SAMPLE_PCT, *, max_folds: int = 12
) -> list[Fold]:
    """The ``folds`` rolling windows over ``steps`` session indices.

    >>> [(f.in_sample_from, f.in_sample_to, f.out_of_sample_to) for f in split_folds(100, 4, 60)]
    [(0, 28, 46), (18, 46, 64), (36, 64, 82), (54, 82, 100)]
    """
    if isinstance(folds, bool) or not isinstance(folds, int) or not MIN_FOLDS <= folds <= max_folds:
        raise InvalidInput(
            f"walkForward.folds must be an integer from {MIN_FOLDS} to {max_folds}, got {folds!r}"
        )
    pct = in_sample_pct
    if isinstance(pct, bool) or not isinstance(pct, int) or not 1 <= pct <= 99:
        raise InvalidInput(
            f"walkForward.inSamplePct must be an integer from 1 to 99, got {in_sample_pct!r}"
        )
    oos = steps * (100 - pct) // (pct + folds * (100 - pct))
    ins = steps - folds * oos
    if oos < MIN_WINDOW or ins < MIN_WINDOW:
        raise InvalidInput(
            f"the prepared session has {steps} steps, too few for {folds} walk-forward folds "
            f"at inSamplePct {pct} (each out-of-sample window needs at least {MIN_WINDOW}); "
            "use fewer folds or prepare a longer range"
        )
    return [Fold(k, k * oos, k * oos + ins, (k + 1) * oos + ins) for k in range(folds)]


def pick_winner(
    values: npt.NDArray[np.float64], aborted: npt.NDArray[np.bool_], objective: Objective
) -> int | None:
    """Position of the in-sample winner (best objective, lowest ``runIx`` on ties), or None.

    >>> pick_winner(np.array([1.0, 5.0, 5.0]), np.zeros(3, bool), Objective.SHARPE)
    1
    """
    order = raw_order(values, aborted, objective)
    return int(order[0]) if order.size else None


def param_drift(winner_ranks: Sequence[Sequence[int]], sizes: Sequence[int]) -> float | None:
    """Mean normalised move of the winning vector between consecutive folds.

    ``winner_ranks[k][j]`` is fold ``k``'s winner's position on axis ``j`` in value order.

    >>> param_drift([[0, 2], [4, 2], [4, 0]], [5, 3])
    0.5
    """
    movable = [j for j, s in enumerate(sizes) if s > 1]
    if len(winner_ranks) < 2 or not movable:
        return None
    w = np.asarray(winner_ranks, dtype=np.float64)[:, movable]
    span = np.asarray(sizes, dtype=np.float64)[movable] - 1.0
    return float(np.mean(np.abs(np.diff(w, axis=0)) / span))
