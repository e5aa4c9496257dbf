"""Sweeps: the frozen run spec of a parameter sweep, its vocabulary, and one stored row.

A ``SweepSpec`` is built once from the request (defaults filled, numbers normalised) and stored
as canonical JSON on the sweep's job row; workers rebuild it with :meth:`SweepSpec.from_json`,
so nothing downstream re-reads the request or repeats a default.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

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

    prepare_job_id: str
    strategy_id: str
    axes: list[dict[str, Any]]  # [{name, values}] in request order, values coerced
    sampler: Sampler
    seed: int
    samples: int | None
    objective: Objective
    base_config: dict[str, Any]
    min_trade_floor: int
    shards: int
    walk_forward: WalkForward | None
    curves: CurvePrefs = field(default_factory=CurvePrefs)
    store_signals: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "prepareJobId": self.prepare_job_id,
            "strategyId": self.strategy_id,
            "axes": self.axes,
            "sampler": self.sampler.value,
            "seed": self.seed,
            "objective": self.objective.value,
            "baseConfig": self.base_config,
            "minTradeFloor": self.min_trade_floor,
            "shards": self.shards,
            "curves": {
                "mode": self.curves.mode.value,
                "n": self.curves.n,
                "maxPct": self.curves.max_pct,
                "resample": self.curves.resample,
                "differential": self.curves.differential,
                "outMode": self.curves.out_mode,
            },
            "storeSignals": self.store_signals,
        }
        if self.samples is not None:
            out["samples"] = self.samples
        if self.walk_forward is not None:
            out["walkForward"] = {
                "folds": self.walk_forward.folds,
                "inSamplePct": self.walk_forward.in_sample_pct,
            }
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SweepSpec:
        wf = data.get("walkForward")
        curves = data.get("curves", {})
        return cls(
            prepare_job_id=data["prepareJobId"],
            strategy_id=data["strategyId"],
            axes=data["axes"],
            sampler=Sampler(data["sampler"]),
            seed=int(data["seed"]),
            samples=data.get("samples"),
            objective=Objective(data["objective"]),
            base_config=data.get("baseConfig", {}),
            min_trade_floor=int(data["minTradeFloor"]),
            shards=int(data["shards"]),
            walk_forward=WalkForward(int(wf["folds"]), int(wf["inSamplePct"])) if wf else None,
            curves=CurvePrefs(
                mode=CurveMode(curves.get("mode", "auto")),
                n=curves.get("n"),
                max_pct=curves.get("maxPct"),
                resample=curves.get("resample"),
                differential=bool(curves.get("differential", False)),
                out_mode=curves.get("outMode", "ARRAY"),
            ),
            store_signals=bool(data.get("storeSignals", False)),
        )


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
