"""The sweep objectives: which ``SweepRunRow`` field each reads, and which direction is better.

Every kernel in ``sweeps`` compares *oriented* scores (higher is always better) so that one code
path serves all four objectives; values shown to users stay in the objective's own units.
"""

from __future__ import annotations

import enum

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]


class Objective(enum.StrEnum):
    """``sharpe``, ``sortino``, ``pnl``: higher is better. ``maxdd``: the smaller drawdown wins."""

    SHARPE = "sharpe"
    SORTINO = "sortino"
    PNL = "pnl"
    MAXDD = "maxdd"

    @property
    def row_field(self) -> str:
        """The ``SweepRunRow`` wire field holding the objective (``maxDdPct`` is >= 0).

        >>> Objective.MAXDD.row_field
        'maxDdPct'
        """
        return "maxDdPct" if self is Objective.MAXDD else self.value

    @property
    def higher_is_better(self) -> bool:
        return self is not Objective.MAXDD

    def oriented(self, values: F64) -> F64:
        """Scores where higher is better: the values, or their negation for ``maxdd``.

        >>> Objective.MAXDD.oriented(np.array([5.0, 1.0])).tolist()
        [-5.0, -1.0]
        """
        v = np.asarray(values, dtype=np.float64)
        return v if self.higher_is_better else -v
