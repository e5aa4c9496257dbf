"""Wire shapes of parameter sweeps (executeSweep, its result, sensitivity and trial curves).

The request model turns itself into the service's request (``to_domain``); the response models
build themselves from the domain values the services return (``of``), so every camelCase name
of a sweep lives in this module. Optional keys are given only when they hold a value: the
routes serialise with ``response_model_exclude_unset``, so an absent figure stays absent.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Literal, Self

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr, TypeAdapter

from backtestd.api.schemas.backtests import BacktestJobState, BaseConfig, EquityCurveMeta
from backtestd.api.schemas.common import RequestBody, WireModel
from backtestd.domain import backtests, sweep_results, sweeps
from backtestd.domain.equity import OutMode
from backtestd.domain.jobs import JobStatus
from backtestd.domain.sweeps import MAX_SAFE_SEED, SweepStatus
from backtestd.domain.timefmt import iso_z

AxisValue = StrictBool | StrictInt | StrictFloat | StrictStr
"""A value a request may put on an axis. A string is read in the property's declared type
(``"20"`` for an ``int`` is 20, as in an execute's ``params``), or kept for a text property."""
ParamValue = StrictBool | StrictInt | StrictFloat | StrictStr
"""A swept value as a response shows it (a stored axis may hold a string)."""
ObjectiveName = Literal["sharpe", "sortino", "pnl", "maxdd"]
SweepStatusName = Literal["RUNNING", "COMPLETED", "PARTIAL", "CANCELLED"]
CurveModeName = Literal["auto", "none", "topN", "topPct"]
CURVE_MODES: Mapping[str, sweeps.CurveMode] = {
    "auto": sweeps.CurveMode.AUTO,
    "none": sweeps.CurveMode.NONE,
    "topN": sweeps.CurveMode.TOP_N,
    "topPct": sweeps.CurveMode.TOP_PCT,
}
"""The wire's spelling of ``equityCurve.mode`` for each retention mode."""
Fields = dict[str, object]
"""A response model's keyword arguments by wire name, the optional ones only when set."""


def _with(fields: Fields, **optional: object) -> Fields:
    """``fields`` and those of ``optional`` that hold a value (the others stay unset)."""
    fields.update((name, value) for name, value in optional.items() if value is not None)
    return fields


def base_config_of(base: backtests.BaseConfig) -> BaseConfig:
    """The settings a sweep's trials ran with: the four that always have a value, and the
    entry lock when one is set."""
    fields: Fields = {
        "initialFunding": base.initial_funding,
        "buyFeeRate": base.buy_fee_rate,
        "sellFeeRate": base.sell_fee_rate,
        "feeLeg": base.fee_leg,
    }
    return BaseConfig.model_validate(_with(fields, percentAmountToLock=base.percent_amount_to_lock))


class RangeAxis(WireModel):
    from_: StrictInt | StrictFloat = Field(alias="from")
    to: StrictInt | StrictFloat
    step: StrictInt | StrictFloat

    def to_domain(self) -> sweeps.AxisRange:
        return sweeps.AxisRange(self.from_, self.to, self.step)


class ValuesAxis(WireModel):
    values: list[AxisValue]

    def to_domain(self) -> sweeps.AxisValues:
        return sweeps.AxisValues(tuple(self.values))


class SweepSpecRequest(WireModel):
    params: dict[str, RangeAxis | ValuesAxis]
    sampler: Literal["grid", "random", "lhs"] = "grid"
    seed: StrictInt | None = Field(
        default=None,
        ge=0,
        le=MAX_SAFE_SEED,
        description="0 to 2^53 - 1, so that every client (JavaScript included) reads it exactly",
    )
    samples: StrictInt | None = None
    objective: ObjectiveName = "sharpe"


class WalkForwardRequest(WireModel):
    folds: StrictInt
    inSamplePct: StrictInt = 66


class EquityCurveRequest(WireModel):
    resample: StrictInt | None = None
    differential: bool = False
    outMode: Literal["ARRAY", "SHORT"] = "ARRAY"
    mode: CurveModeName = "auto"
    n: StrictInt | None = None
    maxPct: StrictInt | StrictFloat | None = None

    def to_domain(self) -> sweeps.CurvePrefs:
        return sweeps.CurvePrefs(
            mode=CURVE_MODES[self.mode],
            n=self.n,
            max_pct=self.maxPct,
            resample=self.resample,
            differential=self.differential,
            out_mode=OutMode(self.outMode),
        )


class ExecuteSweepRequest(RequestBody):
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

    @classmethod
    def of(cls, accepted: sweep_results.SweepAccepted) -> Self:
        walk = accepted.walk_forward
        return cls(
            sweepId=accepted.sweep_id,
            requestId=accepted.request_id,
            totalRuns=accepted.total_runs,
            shards=accepted.shards,
            seed=accepted.seed,
            queued=accepted.queued,
            walkForward=None
            if walk is None
            else WalkForwardAccepted(
                folds=walk.folds,
                inSamplePct=walk.in_sample_pct,
                totalRuns=accepted.walk_forward_runs or 0,
            ),
        )


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

    @classmethod
    def of(cls, progress: sweep_results.SweepProgress) -> Self:
        fields: Fields = {
            "done": progress.done,
            "total": progress.total,
            "aborted": progress.aborted,
            "shardCount": progress.shard_count,
            "pendingShards": progress.pending_shards,
            "failedShards": progress.failed_shards,
            "retrying": progress.retrying,
            "notStarted": progress.not_started,
        }
        return cls.model_validate(
            _with(fields, stalledSeconds=progress.stalled_seconds, etaSeconds=progress.eta_seconds)
        )


class SweepCurveLink(WireModel):
    """Where a trial's retained curve is served, and what it is."""

    url: str
    meta: EquityCurveMeta


def curve_url(exchange_id: str, data_type: str, request_id: str, sweep_id: str, run_ix: int) -> str:
    return (
        f"/v1/backtest/{exchange_id}/{data_type}/executeSweep/"
        f"{request_id}/{sweep_id}/runs/{run_ix}/equityCurve"
    )


class SweepRunRow(WireModel):
    runIx: int
    params: dict[str, ParamValue]
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
    equityCurve: SweepCurveLink | None = None

    @classmethod
    def fields_of(cls, row: sweep_results.LeaderboardRow, curve_link: str | None = None) -> Fields:
        """The row's fields by wire name (``curve_link``: the served curve's URL when
        ``row.curve`` is set). A leaderboard validates its rows' fields in one pass, which at
        a thousand rows costs a third less than building each row's model on its own."""
        m = row.metrics
        fields: Fields = {
            "runIx": row.run_ix,
            "params": row.params,
            "sharpe": m.sharpe,
            "sortino": m.sortino,
            "pnl": m.pnl,
            "pnlPct": m.pnl_pct,
            "cagr": m.cagr,
            "maxDdPct": m.max_dd_pct,
            "trades": m.trades,
            "winRate": m.win_rate,
            "belowTradeFloor": row.below_trade_floor,
            "aborted": row.aborted,
            "runtimeMs": row.runtime_ms,
        }
        # Written out rather than through _with: a natural-order read builds a thousand rows.
        if row.rank is not None:
            fields["rank"] = row.rank
        if row.plateau_score is not None:
            fields["plateauScore"] = row.plateau_score
            fields["neighbourCount"] = row.neighbour_count
        if row.deflated_sharpe is not None:
            fields["deflatedSharpe"] = row.deflated_sharpe
        if row.curve is not None and curve_link is not None:
            fields["equityCurve"] = SweepCurveLink(
                url=curve_link, meta=EquityCurveMeta.of(row.curve)
            )
        return fields

    @classmethod
    def of(cls, row: sweep_results.LeaderboardRow, curve_link: str | None = None) -> Self:
        return cls.model_validate(cls.fields_of(row, curve_link))


class WalkForwardFold(WireModel):
    foldIx: int
    inSampleFrom: int
    inSampleTo: int
    outOfSampleTo: int
    params: dict[str, ParamValue]
    inSampleSharpe: float
    outOfSample: SweepRunRow
    vectorsRun: int
    # Extra keys: the three bounds above as UTC times (absent on folds stored before them).
    inSampleFromTime: str | None = None
    inSampleToTime: str | None = None
    outOfSampleToTime: str | None = None

    @classmethod
    def of(cls, result: sweep_results.FoldResult) -> Self:
        fold = result.fold
        fields: Fields = {
            "foldIx": fold.fold_ix,
            "inSampleFrom": fold.in_sample_from,
            "inSampleTo": fold.in_sample_to,
            "outOfSampleTo": fold.out_of_sample_to,
            "params": fold.params,
            "inSampleSharpe": fold.in_sample_sharpe,
            "outOfSample": SweepRunRow.of(result.out_of_sample),
            "vectorsRun": fold.vectors_run,
        }
        if fold.times_ms is not None:
            names = ("inSampleFromTime", "inSampleToTime", "outOfSampleToTime")
            for name, ms in zip(names, fold.times_ms, strict=True):
                fields[name] = iso_z(datetime.fromtimestamp(ms / 1000, UTC))
        return cls.model_validate(fields)


class WalkForwardResult(WireModel):
    folds: int
    completedFolds: int
    results: list[WalkForwardFold]
    inSamplePct: int | None = None
    paramDrift: float | None = None

    @classmethod
    def of(cls, walk: sweep_results.WalkForwardView) -> Self:
        fields: Fields = {
            "folds": walk.folds,
            "completedFolds": walk.completed_folds,
            "results": [WalkForwardFold.of(f) for f in walk.results],
            "inSamplePct": walk.in_sample_pct,
        }
        return cls.model_validate(_with(fields, paramDrift=walk.param_drift))


_BOARD_ROWS: dict[int, list[SweepRunRow]] = {}
"""The wire rows of each leaderboard still in a sweep's memo, by the board's identity: the
service keeps one board per row count and hands the same object to every poll until the next
row batch lands, so its rows are built and validated once, not once per poll (a natural-order
read of a thousand rows spent about 3.4 ms validating them, a third of the GET's server CPU). A
response validates a model instance by its class alone. An entry goes with its board."""

_ROWS: TypeAdapter[list[SweepRunRow]] = TypeAdapter(list[SweepRunRow])


def _leaderboard_rows(
    board: sweep_results.Leaderboard, link: Callable[[int], str]
) -> list[SweepRunRow]:
    key = id(board)
    rows = _BOARD_ROWS.get(key)
    if rows is None:
        rows = _ROWS.validate_python(
            [
                SweepRunRow.fields_of(row, link(row.run_ix) if row.curve else None)
                for row in board.rows
            ]
        )
        _BOARD_ROWS[key] = rows
        weakref.finalize(board, _BOARD_ROWS.pop, key, None)
    return rows


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

    @classmethod
    def of(cls, result: sweep_results.SweepResult) -> Self:
        board, job = result.board, result.job

        def link(run_ix: int) -> str:
            return curve_url(job.exchange_id, job.data_type, result.request_id, job.job_id, run_ix)

        fields: Fields = {
            "sweepId": board.sweep_id,
            "status": result.status.value,
            "objective": board.objective.value,
            "order": board.order.value,
            "progress": SweepProgress.of(result.progress),
            "leaderboardSize": board.size,
            "truncated": board.truncated,
            "leaderboard": _leaderboard_rows(board, link),
            "state": BacktestJobState.of(job, result.completed),
            "ranking": board.ranking.value,
            # Additive (docs/api-decisions.md): what a row needs to be re-run through execute.
            "strategyId": board.strategy_id,
            "baseConfig": base_config_of(board.base_config),
        }
        over = board.overfitting
        walk = board.walk_forward
        return cls.model_validate(
            _with(
                fields,
                pbo=None if over is None else over.pbo,
                pboSplits=None if over is None else over.splits,
                walkForward=None if walk is None else WalkForwardResult.of(walk),
                failReason=_fail_reason(result),
            )
        )


def _fail_reason(result: sweep_results.SweepResult) -> str | None:
    """The first shard failure's cause: a sweep that closed with a failed shard keeps it as its
    own ``statusDetail`` (``domain.sweeps.sweep_closing``)."""
    if result.status is SweepStatus.PARTIAL or result.job.status is JobStatus.FAILED:
        return result.job.status_detail
    return None


class CancelSweepResponse(WireModel):
    """``status`` is always ``cancelling``, as the description requires. For a sweep that had
    already finished, ``sweepStatus`` and ``message`` say so, and nothing changed
    (docs/api-decisions.md)."""

    status: Literal["cancelling"] = "cancelling"
    sweepId: str
    sweepStatus: SweepStatusName | None = None
    message: str | None = None

    @classmethod
    def of(cls, sweep_id: str, finished: SweepStatus | None) -> Self:
        if finished is None:
            return cls(sweepId=sweep_id)
        return cls(
            sweepId=sweep_id,
            sweepStatus=finished.value,
            message=f"sweep {sweep_id} has already finished ({finished.value}); nothing was "
            "cancelled and its results are unchanged",
        )


class MarginalPoint(WireModel):
    value: ParamValue
    count: int
    best: float
    mean: float
    worst: float

    @classmethod
    def of(cls, point: sweep_results.MarginalPoint) -> Self:
        s = point.stats
        return cls(value=point.value, count=s.count, best=s.best, mean=s.mean, worst=s.worst)


class SweepMarginal(WireModel):
    param: str
    points: list[MarginalPoint]


class HeatmapCell(WireModel):
    valueA: ParamValue
    valueB: ParamValue
    count: int
    best: float
    mean: float
    worst: float

    @classmethod
    def of(cls, cell: sweep_results.HeatmapCell) -> Self:
        s = cell.stats
        return cls(
            valueA=cell.value_a,
            valueB=cell.value_b,
            count=s.count,
            best=s.best,
            mean=s.mean,
            worst=s.worst,
        )


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

    @classmethod
    def of(cls, view: sweep_results.SensitivityView) -> Self:
        found = view.sensitivity
        return cls(
            sweepId=view.sweep_id,
            status=view.status.value,
            objective=view.objective.value,
            rowsAnalysed=view.rows_analysed,
            marginals=[
                SweepMarginal(param=m.param, points=[MarginalPoint.of(p) for p in m.points])
                for m in found.marginals
            ],
            heatmaps=[
                SweepHeatmap(
                    paramA=h.param_a, paramB=h.param_b, cells=[HeatmapCell.of(c) for c in h.cells]
                )
                for h in found.heatmaps
            ],
            heatmapsTruncated=found.heatmaps_truncated,
        )
