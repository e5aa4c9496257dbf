"""Wire shapes of parameter sweeps (executeSweep, its result, sensitivity and trial curves)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictBool, StrictFloat, StrictInt

from backtestd.api.schemas.backtests import BacktestJobState, BaseConfig
from backtestd.api.schemas.common import WireModel

AxisValue = StrictBool | StrictInt | StrictFloat
ObjectiveName = Literal["sharpe", "sortino", "pnl", "maxdd"]
SweepStatusName = Literal["RUNNING", "COMPLETED", "PARTIAL", "CANCELLED"]


class RangeAxis(WireModel):
    from_: StrictInt | StrictFloat = Field(alias="from")
    to: StrictInt | StrictFloat
    step: StrictInt | StrictFloat


class ValuesAxis(WireModel):
    values: list[AxisValue]


class SweepSpecRequest(WireModel):
    params: dict[str, RangeAxis | ValuesAxis]
    sampler: Literal["grid", "random", "lhs"] = "grid"
    seed: StrictInt | None = None
    samples: StrictInt | None = None
    objective: ObjectiveName = "sharpe"


class WalkForwardRequest(WireModel):
    folds: StrictInt
    inSamplePct: StrictInt = 66


class EquityCurveRequest(WireModel):
    resample: StrictInt | None = None
    differential: bool = False
    outMode: Literal["ARRAY", "SHORT"] = "ARRAY"
    mode: Literal["auto", "none", "topN", "topPct"] = "auto"
    n: StrictInt | None = None
    maxPct: StrictInt | StrictFloat | None = None


class ExecuteSweepRequest(WireModel):
    strategyId: str
    sweep: SweepSpecRequest
    baseConfig: BaseConfig | None = None
    storeSignals: bool = False
    shards: StrictInt = 0
    minTradeFloor: StrictInt = 30
    walkForward: WalkForwardRequest | None = None
    equityCurve: EquityCurveRequest | None = None


class WalkForwardAccepted(WireModel):
    folds: int
    inSamplePct: int
    totalRuns: int


class ExecuteSweepAccepted(WireModel):
    sweepId: str
    requestId: str
    totalRuns: int
    shards: int
    seed: int
    queued: bool
    walkForward: WalkForwardAccepted | None = None


class SweepProgress(WireModel):
    done: int
    total: int
    aborted: int
    shardCount: int
    pendingShards: int
    failedShards: int
    retrying: int
    notStarted: int
    stalledSeconds: int | None = None
    etaSeconds: int | None = None


class SweepRunRow(WireModel):
    runIx: int
    params: dict[str, Any]
    sharpe: float
    sortino: float
    pnl: float
    pnlPct: float
    cagr: float
    maxDdPct: float
    trades: int
    winRate: float
    belowTradeFloor: bool
    aborted: bool
    runtimeMs: int
    rank: int | None = None
    plateauScore: float | None = None
    neighbourCount: int | None = None
    deflatedSharpe: float | None = None
    equityCurve: dict[str, Any] | None = None


class WalkForwardFold(WireModel):
    foldIx: int
    inSampleFrom: int
    inSampleTo: int
    outOfSampleTo: int
    params: dict[str, Any]
    inSampleSharpe: float
    outOfSample: SweepRunRow
    vectorsRun: int


class WalkForwardResult(WireModel):
    folds: int
    completedFolds: int
    results: list[WalkForwardFold]
    inSamplePct: int | None = None
    paramDrift: float | None = None


JobState = BacktestJobState


class ExecuteSweepResult(WireModel):
    sweepId: str
    status: SweepStatusName
    objective: ObjectiveName
    order: Literal["ranked", "natural"]
    progress: SweepProgress
    leaderboardSize: int
    truncated: bool
    leaderboard: list[SweepRunRow]
    state: JobState
    ranking: Literal["plateau", "raw"] | None = None
    pbo: float | None = None
    pboSplits: int | None = None
    failReason: str | None = None
    walkForward: WalkForwardResult | None = None
    strategyId: str | None = Field(
        default=None, description="additive: the swept strategy, to re-run a row via execute"
    )
    baseConfig: BaseConfig | None = Field(
        default=None, description="additive: the portfolio settings every trial ran with"
    )


class CancelSweepResponse(WireModel):
    status: Literal["cancelling"] = "cancelling"
    sweepId: str


class MarginalPoint(WireModel):
    value: Any
    count: int
    best: float
    mean: float
    worst: float


class SweepMarginal(WireModel):
    param: str
    points: list[MarginalPoint]


class HeatmapCell(WireModel):
    valueA: Any
    valueB: Any
    count: int
    best: float
    mean: float
    worst: float


class SweepHeatmap(WireModel):
    paramA: str
    paramB: str
    cells: list[HeatmapCell]


class SweepSensitivity(WireModel):
    sweepId: str
    status: SweepStatusName
    objective: ObjectiveName
    rowsAnalysed: int
    marginals: list[SweepMarginal]
    heatmaps: list[SweepHeatmap]
    heatmapsTruncated: bool
