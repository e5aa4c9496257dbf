"""What the read side of a sweep answers, as values: the accepted sweep, its result (status,
progress, leaderboard, statistics, walk-forward folds), its sensitivity and a trial's curve.

``services/sweeps.py`` and ``services/sweep_views.py`` build these from the stored rows;
``api/schemas/sweeps.py`` alone turns them into the wire (``ExecuteSweepResult.of`` and its
siblings), so a new figure on a leaderboard row is one field here and one there.
"""

from __future__ import annotations

from dataclasses import dataclass

from backtestd.domain.backtests import BaseConfig
from backtestd.domain.equity import EquityCurveMeta
from backtestd.domain.jobs import JobRecord
from backtestd.domain.sweeps import (
    FoldOutcome,
    LeaderboardOrder,
    Objective,
    Params,
    ParamScalar,
    Ranking,
    SweepMetrics,
    SweepStatus,
    WalkForward,
)


@dataclass(frozen=True)
class SweepAccepted:
    """A submitted sweep: its id, size and seed; ``queued`` is False for a resubmission of
    the same request (the stored sweep is answered)."""

    sweep_id: str
    request_id: str
    total_runs: int
    shards: int
    seed: int
    queued: bool
    walk_forward: WalkForward | None = None

    @property
    def walk_forward_runs(self) -> int | None:
        """Backtests a walk-forward sweep runs: every vector in sample, plus one out of
        sample, per fold."""
        walk = self.walk_forward
        return None if walk is None else walk.folds * (self.total_runs + 1)


@dataclass(frozen=True)
class SweepProgress:
    """How far a sweep is: rows stored of the total, and what its shards are doing.
    ``stalled_seconds`` and ``eta_seconds`` only while a shard is active."""

    done: int
    total: int
    aborted: int
    shard_count: int
    pending_shards: int
    failed_shards: int
    retrying: int
    not_started: int
    stalled_seconds: int | None = None
    eta_seconds: int | None = None


@dataclass(frozen=True)
class LeaderboardRow:
    """One trial as the leaderboard shows it. ``rank`` in ranked order only; ``plateau_score``
    and ``neighbour_count`` under plateau ranking; ``deflated_sharpe`` where DSR is known;
    ``curve`` is the served curve's ``meta`` when the trial kept one."""

    run_ix: int
    params: Params
    metrics: SweepMetrics
    below_trade_floor: bool
    aborted: bool
    runtime_ms: int
    rank: int | None = None
    plateau_score: float | None = None
    neighbour_count: int | None = None
    deflated_sharpe: float | None = None
    curve: EquityCurveMeta | None = None


@dataclass(frozen=True)
class FoldResult:
    """A scored walk-forward fold: its windows and winner, and the out-of-sample row."""

    fold: FoldOutcome
    out_of_sample: LeaderboardRow


@dataclass(frozen=True)
class WalkForwardView:
    folds: int
    in_sample_pct: int
    results: tuple[FoldResult, ...]
    param_drift: float | None = None

    @property
    def completed_folds(self) -> int:
        return len(self.results)


@dataclass(frozen=True)
class Overfitting:
    """PBO (probability of backtest overfitting) and the number of CSCV splits it used."""

    pbo: float
    splits: int


@dataclass(frozen=True)
class Leaderboard:
    """What a result is built from that depends only on the stored rows and the query (kept
    per row count between polls): everything but the status, progress and job state."""

    sweep_id: str
    objective: Objective
    order: LeaderboardOrder
    ranking: Ranking
    rows: tuple[LeaderboardRow, ...]
    size: int
    truncated: bool
    strategy_id: str
    base_config: BaseConfig
    overfitting: Overfitting | None = None
    walk_forward: WalkForwardView | None = None


@dataclass(frozen=True)
class SweepResult:
    """A sweep's result as one read sees it. ``job`` is the sweep's job row and ``completed``
    the rows stored (its state's ``completed``); a served curve's link is built from
    ``exchange_id``, ``data_type``, ``request_id`` and the row's ``run_ix``."""

    board: Leaderboard
    status: SweepStatus
    progress: SweepProgress
    job: JobRecord
    completed: int
    request_id: str


@dataclass(frozen=True)
class ValueStats:
    """The objective over a group of finished trials, best and worst by the objective."""

    count: int
    best: float
    mean: float
    worst: float


@dataclass(frozen=True)
class MarginalPoint:
    value: ParamScalar
    stats: ValueStats


@dataclass(frozen=True)
class Marginal:
    """The objective grouped by one axis's values (ascending)."""

    param: str
    points: tuple[MarginalPoint, ...]


@dataclass(frozen=True)
class HeatmapCell:
    value_a: ParamScalar
    value_b: ParamScalar
    stats: ValueStats


@dataclass(frozen=True)
class Heatmap:
    """The objective grouped by the values of two axes."""

    param_a: str
    param_b: str
    cells: tuple[HeatmapCell, ...]


@dataclass(frozen=True)
class Sensitivity:
    marginals: tuple[Marginal, ...]
    heatmaps: tuple[Heatmap, ...]
    heatmaps_truncated: bool


@dataclass(frozen=True)
class SensitivityView:
    sweep_id: str
    status: SweepStatus
    objective: Objective
    rows_analysed: int
    sensitivity: Sensitivity
