"""Sweeps: the frozen run spec of a parameter sweep, its vocabulary, and one stored row.

A ``SweepSpec`` is built once from the request (defaults filled, numbers normalised) and stored
on the sweep's job row (``domain.job_specs``); workers read it back typed, so nothing
downstream re-reads the request or repeats a default.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Literal

from backtestd.domain.backtests import STRICT, BaseConfig
from backtestd.domain.jobs import JobKind

ParamScalar = bool | int | float


class Sampler(enum.StrEnum):
    GRID = "grid"
    RANDOM = "random"
    LHS = "lhs"


class Objective(enum.StrEnum):
    SHARPE = "sharpe"
    SORTINO = "sortino"
    PNL = "pnl"
    MAXDD = "maxdd"

    @property
    def row_field(self) -> str:
        """The ``SweepRunRow`` metric this objective ranks by."""
        return {"sharpe": "sharpe", "sortino": "sortino", "pnl": "pnl", "maxdd": "maxDdPct"}[
            self.value
        ]

    @property
    def higher_is_better(self) -> bool:
        """``maxdd`` ranks the smallest drawdown first; every other objective the largest value."""
        return self is not Objective.MAXDD


class SweepStatus(enum.StrEnum):
    """The sweep's own upper-case vocabulary (``ExecuteSweepResult.status``)."""

    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    PARTIAL = "PARTIAL"
    CANCELLED = "CANCELLED"


class CurveMode(enum.StrEnum):
    AUTO = "auto"
    NONE = "none"
    TOP_N = "topN"
    TOP_PCT = "topPct"


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
    out_mode: str = "ARRAY"


@dataclass(frozen=True)
class SweepSpec:
    """Everything a sweep's workers need, resolved: vectors are re-expanded from it, not stored."""

    __pydantic_config__ = STRICT

    prepare_job_id: str
    strategy_id: str
    axes: list[dict[str, Any]]  # [{name, values}] in request order, values coerced
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
class SweepRow:
    """One finished trial (or, in walk-forward mode, one fold's out-of-sample score)."""

    sweep_id: str
    run_ix: int
    params: dict[str, ParamScalar]
    metrics: dict[str, float | int]
    aborted: bool
    runtime_ms: int
    daily_returns: tuple[float, ...] = ()
    error: str | None = None
    curve: dict[str, list[float]] | None = None
    fold: dict[str, Any] | None = None


@dataclass(frozen=True)
class ShardOutcome:
    """What a sweep shard stored when it ended: the rows it wrote, or the fold it scored."""

    rows: int | None = None
    fold: int | None = None
