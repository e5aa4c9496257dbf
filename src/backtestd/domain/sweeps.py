"""Sweeps: the frozen run spec of a parameter sweep, its vocabulary, one stored row, and the
sweep's lifecycle (its status and the rule that closes it).

A ``SweepSpec`` is built once from the request (defaults filled, numbers normalised) and stored
on the sweep's job row (``domain.job_specs``); workers read it back typed, so nothing
downstream re-reads the request or repeats a default. A stored row (``SweepRow``) holds typed
metrics (``SweepMetrics``) and, in walk-forward mode, its fold (``FoldOutcome``); the table's
JSON columns are written and read through ``domain.serial``. The wire's names for all of these
are built in ``api/schemas/sweeps.py`` only.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from backtestd.domain.backtests import STRICT, BaseConfig, RunLimit
from backtestd.domain.equity import EquityCurveMeta, OutMode
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus

ParamScalar = bool | int | float | str
"""A swept property value (coerced to the property's declared type; a ``java.lang.String``
property keeps what it was given)."""
Params = dict[str, ParamScalar]
"""One parameter vector: property name to value, in axis order."""


MAX_SAFE_SEED = 2**53 - 1
"""The largest seed: every JSON client (JavaScript included) reads integers up to it exactly."""
MAX_RUN_IX = 2**31 - 1
"""The largest trial index a sweep can hold (the stored column is a 32-bit integer)."""


class Sampler(enum.StrEnum):
    GRID = "grid"
    RANDOM = "random"
    LHS = "lhs"


@dataclass(frozen=True)
class SweepMetrics:
    """The metrics of one trial, as a leaderboard row shows them (``engine.metrics``
    ``sweep_metrics`` builds them from a run's ``Metrics``)."""

    sharpe: float
    sortino: float
    pnl: float
    pnl_pct: float
    cagr: float
    max_dd_pct: float
    trades: int
    win_rate: float


class Objective(enum.StrEnum):
    SHARPE = "sharpe"
    SORTINO = "sortino"
    PNL = "pnl"
    MAXDD = "maxdd"

    def score(self, metrics: SweepMetrics) -> float:
        """The metric this objective ranks by.

        >>> Objective.MAXDD.score(SweepMetrics(1.0, 2.0, 3.0, 4.0, 0.1, 12.5, 7, 0.5))
        12.5
        """
        if self is Objective.SHARPE:
            return float(metrics.sharpe)
        if self is Objective.SORTINO:
            return float(metrics.sortino)
        if self is Objective.PNL:
            return float(metrics.pnl)
        return float(metrics.max_dd_pct)

    @property
    def higher_is_better(self) -> bool:
        """``maxdd`` ranks the smallest drawdown first; every other objective the largest value."""
        return self is not Objective.MAXDD


class CurveMode(enum.StrEnum):
    """Which trials keep an equity curve (the api maps the wire's spelling onto these)."""

    AUTO = "auto"
    NONE = "none"
    TOP_N = "top_n"
    TOP_PCT = "top_pct"


class LeaderboardOrder(enum.StrEnum):
    RANKED = "ranked"
    NATURAL = "natural"


class Ranking(enum.StrEnum):
    PLATEAU = "plateau"
    RAW = "raw"


@dataclass(frozen=True)
class AxisRange:
    """An axis asked as an inclusive range ``start, start+step, ... <= stop``."""

    start: float
    stop: float
    step: float


@dataclass(frozen=True)
class AxisValues:
    """An axis asked as a list of values."""

    values: tuple[ParamScalar, ...]


AxisRequest = AxisRange | AxisValues


@dataclass(frozen=True)
class SweepAxis:
    """One resolved axis: its lattice, every value coerced to the property's type."""

    name: str
    values: tuple[ParamScalar, ...]


@dataclass(frozen=True)
class WalkForward:
    folds: int
    in_sample_pct: int


@dataclass(frozen=True)
class CurvePrefs:
    """Retention (which trials keep a curve) and the default transforms of served curves."""

    mode: CurveMode = CurveMode.AUTO
    n: int | None = None
    max_pct: float | None = None
    resample: int | None = None
    differential: bool = False
    out_mode: OutMode = OutMode.ARRAY


@dataclass(frozen=True)
class SweepWorkerLimit:
    """The worker time one sweep may use on the caller's tier (``maxSweepWorkerSeconds``): the
    sum of its trials' run times. Past it the shards stop and the sweep ends partial, its rows
    kept, so a large grid of slow vectors cannot hold workers for days."""

    tier: str
    seconds: int


@dataclass(frozen=True)
class SweepSpec:
    """Everything a sweep's workers need, resolved: vectors are re-expanded from it, not stored."""

    __pydantic_config__ = STRICT

    prepare_job_id: str
    strategy_id: str
    axes: tuple[SweepAxis, ...]  # in request order, values coerced
    sampler: Sampler
    seed: int
    samples: int | None
    objective: Objective
    base_config: BaseConfig
    min_trade_floor: int
    shards: int
    walk_forward: WalkForward | None
    curves: CurvePrefs = field(default_factory=CurvePrefs)
    store_signals: bool = False
    run_limit: RunLimit | None = None  # per vector; None in rows stored before tiers had one
    worker_limit: SweepWorkerLimit | None = None
    kind: Literal[JobKind.SWEEP] = field(default=JobKind.SWEEP, kw_only=True)


@dataclass(frozen=True)
class SweepShardSpec:
    """One shard of a sweep: the trials ``[start, stop)`` of its vectors, or one walk-forward
    ``fold``. The sweep's own spec is read from the sweep's row (``sweep_id``)."""

    __pydantic_config__ = STRICT

    sweep_id: str
    start: int = 0
    stop: int = 0
    fold: int | None = None
    kind: Literal[JobKind.SWEEP_SHARD] = field(default=JobKind.SWEEP_SHARD, kw_only=True)


@dataclass(frozen=True)
class FoldOutcome:
    """A walk-forward fold: its windows (row indices, ends exclusive), the in-sample winner and
    its in-sample Sharpe. The out-of-sample score is the row that carries it.

    ``times_ms`` is the same three bounds as epoch milliseconds (the in-sample start, the cut,
    the out-of-sample end), so a client can draw the folds on a time axis; ``None`` on folds
    stored before it was recorded."""

    fold_ix: int
    in_sample_from: int
    in_sample_to: int
    out_of_sample_to: int
    params: Params
    in_sample_sharpe: float
    vectors_run: int
    times_ms: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class TrialCurve:
    """A trial's realised equity curve as stored: timestamps (ms) and equities. The short
    names are the stored column's (``{"ts": [...], "eq": [...]}``, thousands of numbers)."""

    ts: tuple[int, ...]
    eq: tuple[float, ...]
    # Points of the trial's full curve when more than the stored bound were thinned out at
    # store time (``BACKTESTD_SWEEP_CURVE_MAX_POINTS``); None when it is stored whole.
    full_points: int | None = None

    def served_meta(self, meta: EquityCurveMeta) -> EquityCurveMeta:
        """The meta of a curve served from this stored one: when it was stored thinned out,
        the trial's full curve is the input and the served one is resampled."""
        if self.full_points is None:
            return meta
        return replace(meta, input_point_count=self.full_points, resampled=True)


@dataclass(frozen=True)
class SweepRow:
    """One finished trial (or, in walk-forward mode, one fold's out-of-sample score)."""

    sweep_id: str
    run_ix: int
    params: Params
    metrics: SweepMetrics
    aborted: bool
    runtime_ms: int
    daily_returns: tuple[float, ...] = ()
    error: str | None = None
    curve: TrialCurve | None = None
    fold: FoldOutcome | None = None


@dataclass(frozen=True)
class ShardOutcome:
    """What a sweep shard stored when it ended: the rows it wrote, or the fold it scored."""

    rows: int | None = None
    fold: int | None = None


# -- lifecycle -----------------------------------------------------------------------------


class SweepStatus(enum.StrEnum):
    """The sweep's own upper-case vocabulary (the result's ``status``)."""

    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    PARTIAL = "PARTIAL"
    CANCELLED = "CANCELLED"


CANCELLED_DETAIL = "cancelled on request"


def sweep_status(sweep: JobRecord, shards: Sequence[JobRecord]) -> SweepStatus:
    """The sweep's status from its own job row and its shards' rows (ordered rules, the first
    that holds wins): a cancel wins; then a sweep not closed yet runs; a closed sweep with a
    failed shard is partial; else it completed."""
    if sweep.cancel_requested or sweep.status is JobStatus.ABORTED:
        return SweepStatus.CANCELLED
    if not sweep.status.terminal:
        return SweepStatus.RUNNING
    if any(s.status is JobStatus.FAILED for s in shards):
        return SweepStatus.PARTIAL
    return SweepStatus.COMPLETED


@dataclass(frozen=True)
class SweepClosing:
    """The terminal job state a sweep's row takes when its last shard has ended."""

    status: JobStatus
    detail: str | None


CLOSING_STATUS: Mapping[bool, JobStatus] = {True: JobStatus.FAILED, False: JobStatus.COMPLETED}
"""Every shard failed -> the sweep failed; otherwise it completed (partial shows as PARTIAL)."""


def sweep_closing(shards: Sequence[JobRecord]) -> SweepClosing | None:
    """The one rule that closes a sweep: ``None`` while a shard is still queued or running (or
    there are none); once every shard has ended, ``Failed`` when all of them failed (with the
    first failure's detail) and ``Completed`` otherwise (with the first failure's detail when
    some failed, so a partial sweep says why)."""
    if not shards or any(not s.status.terminal for s in shards):
        return None
    failed = [s for s in shards if s.status is JobStatus.FAILED]
    detail = failed[0].status_detail if failed else None
    return SweepClosing(CLOSING_STATUS[len(failed) == len(shards)], detail)
