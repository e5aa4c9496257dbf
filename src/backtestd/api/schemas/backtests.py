"""Wire shapes of prepare and execute."""

from __future__ import annotations

import re
from typing import Any, Literal, Self

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr

from backtestd.api.schemas.common import RequestBody, WireModel
from backtestd.domain import backtest_results, backtests, equity
from backtestd.domain.backtest_results import ExecuteResult, PrepareOutcome
from backtestd.domain.backtests import PrepareSpec
from backtestd.domain.equity import OutMode
from backtestd.domain.jobs import JobRecord, JobStatus
from backtestd.domain.timefmt import iso_z
from backtestd.errors import InvalidInput
from backtestd.services.job_views import is_retryable

ParamValue = StrictBool | StrictInt | StrictFloat | StrictStr
NOTICE_LEVEL = "WARN"
NOTICE_CODE = "engine.notice"


class PrepareRequest(RequestBody):
    from_: str = Field(alias="from")
    to: str
    instrument: str | None = None
    datasetId: str | None = None
    datasetVersionId: str | None = None
    cadence: str | None = None


class AcceptedJob(WireModel):
    jobId: str


class PrepareAccepted(WireModel):
    jobId: str
    cadence: str  # the cadence in effect (the default when the request named none)


class EquityCurveOptions(WireModel):
    resample: int | None = None
    differential: bool | None = None
    outMode: Literal["ARRAY", "SHORT"] | None = None

    def to_domain(self) -> backtests.EquityCurveOptions:
        """The options in effect (absent ones at their defaults); the service checks them."""
        return backtests.EquityCurveOptions(
            self.resample, bool(self.differential), OutMode(self.outMode or "ARRAY")
        )


class BaseConfig(WireModel):
    initialFunding: float | None = None
    feeRate: float | None = None
    buyFeeRate: float | None = None
    sellFeeRate: float | None = None
    feeLeg: Literal["BASE", "QUOTE", "RECEIVED"] | None = None
    percentAmountToLock: float | None = None

    def to_domain(self) -> backtests.BaseConfig:
        """The settings in effect (absent ones resolved); the service checks them."""
        return backtests.BaseConfig.resolve(
            initial_funding=self.initialFunding,
            fee_rate=self.feeRate,
            buy_fee_rate=self.buyFeeRate,
            sell_fee_rate=self.sellFeeRate,
            fee_leg=self.feeLeg,
            percent_amount_to_lock=self.percentAmountToLock,
        )


PARAM_KEY = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
RESERVED_PARAMS = frozenset(
    {"strategyId", "storeSignals", "equityCurve", "backtestEnabled", "backtestFakeExecution"}
)
"""``params`` keys that name the request's own fields or the engine's run switches."""


class ExecuteBacktestBody(RequestBody):
    prepareJobId: str
    strategyId: str
    storeSignals: bool = False
    equityCurve: EquityCurveOptions | None = None
    baseConfig: BaseConfig | None = None
    params: dict[str, ParamValue] | None = None

    def checked_params(self) -> dict[str, ParamValue] | None:
        """The strategy properties to set, each key checked (``InvalidInput`` names it)."""
        for key in self.params or {}:
            if key in RESERVED_PARAMS:
                raise InvalidInput(f"params key {key!r} is reserved and cannot be set")
            if not PARAM_KEY.match(key):
                raise InvalidInput(
                    f"params key {key!r} is not valid: use letters, digits, '_', '-' and '.'"
                )
        return self.params


class HourWithoutData(WireModel):
    hour: str
    expected: int
    rationale: Literal["low_activity", "pending_conversion", "unknown"]

    @classmethod
    def of(cls, gap: backtest_results.HourWithoutData) -> Self:
        return cls(hour=iso_z(gap.hour) or "", expected=gap.expected, rationale=gap.rationale)


class BacktestJobState(WireModel):
    """``state`` of a prepare, execute or sweep job (JobState)."""

    contextId: str
    status: Literal["New", "Started", "Completed", "Failed", "Aborted"]
    statusDetail: str | None
    size: int
    completed: int
    startTime: str | None
    endTime: str | None
    retryable: bool | None = None

    @classmethod
    def fields_of(cls, job: JobRecord, completed: int | None = None) -> dict[str, Any]:
        """``completed`` overrides the row's counter where the caller counts better (a sweep
        counts its stored rows, which its shards write, not its own job row)."""
        spec = job.spec
        instrument = spec.instrument.lower() if isinstance(spec, PrepareSpec) else ""
        return {
            "contextId": f"jctx:{job.data_type}:{job.user_id}:{job.exchange_id}:{job.job_id}"
            + (f":{instrument}" if instrument else ""),
            "status": job.status.value,
            "statusDetail": job.status_detail,
            "size": job.size,
            "completed": _completed(job) if completed is None else completed,
            "startTime": iso_z(job.start_time),
            "endTime": iso_z(job.end_time),
            "retryable": is_retryable(job),
        }

    @classmethod
    def of(cls, job: JobRecord, completed: int | None = None) -> Self:
        return cls(**cls.fields_of(job, completed))


def _completed(job: JobRecord) -> int:
    """A completed job did all of its work: ``completed`` equals ``size`` even for rows written
    before the runner recorded it so (an execute's last step used to leave 2 of 3)."""
    return job.size if job.status is JobStatus.COMPLETED else job.completed


class PrepareJobState(BacktestJobState):
    """A prepare's state with its coverage report once it finished."""

    dataFrom: str | None = None
    dataTo: str | None = None
    coverageRatio: float | None = None
    totalHours: int | None = None
    hoursWithData: int | None = None
    closedHours: int | None = None
    hoursWithoutData: list[HourWithoutData] | None = None
    cadence: str | None = None  # user prepares only, with gaps and largestGapSteps
    gaps: int | None = None
    largestGapSteps: int | None = None

    @classmethod
    def of(cls, job: JobRecord, completed: int | None = None) -> Self:
        """The state, and once the prepare ended its report (``dataFrom``/``dataTo`` always,
        null when no row was found; the rest as the prepare's source reports them)."""
        fields = cls.fields_of(job, completed)
        if job.status.terminal:
            found = job.result_as(PrepareOutcome) or PrepareOutcome()
            fields["dataFrom"] = iso_z(found.data_from)
            fields["dataTo"] = iso_z(found.data_to)
            gaps = found.hours_without_data
            report = {
                "coverageRatio": found.coverage_ratio,
                "totalHours": found.total_hours,
                "hoursWithData": found.hours_with_data,
                "closedHours": found.closed_hours,
                "hoursWithoutData": None
                if gaps is None
                else [
                    HourWithoutData(
                        hour=iso_z(g.hour) or "", expected=g.expected, rationale=g.rationale
                    )
                    for g in gaps
                ],
                "cadence": found.cadence,
                "gaps": found.gaps,
                "largestGapSteps": found.largest_gap_steps,
            }
            fields.update({name: value for name, value in report.items() if value is not None})
        return cls(**fields)


class CancelBacktestResponse(WireModel):
    """``status`` is present when cancelling was requested. For a job that had already
    finished it is absent (the description makes it optional), and ``jobStatus`` and
    ``message`` say how the job ended (docs/api-decisions.md)."""

    status: Literal["cancelling"] | None = "cancelling"
    jobId: str
    jobStatus: Literal["Completed", "Failed", "Aborted"] | None = None
    message: str | None = None

    @classmethod
    def of(cls, job_id: str, finished: JobStatus | None) -> Self:
        if finished is None:
            return cls(jobId=job_id)
        return cls(
            status=None,
            jobId=job_id,
            jobStatus=finished.value,  # type: ignore[arg-type]
            message=f"job {job_id} has already finished ({finished.value}); there is nothing "
            "to cancel and its state is unchanged",
        )


class EquityPoint(WireModel):
    timestamp: int
    equity: float


class EquityCurveMeta(WireModel):
    inputPointCount: int
    outputPointCount: int
    resampled: bool
    differential: bool
    outMode: Literal["ARRAY", "SHORT"]

    @classmethod
    def of(cls, meta: equity.EquityCurveMeta) -> Self:
        return cls(
            inputPointCount=meta.input_point_count,
            outputPointCount=meta.output_point_count,
            resampled=meta.resampled,
            differential=meta.differential,
            outMode=meta.out_mode.value,
        )


class EquityCurveResult(WireModel):
    """``points`` (``ARRAY``) or ``timestamps`` + ``equities`` (``SHORT``), always ``meta``."""

    meta: EquityCurveMeta
    points: list[EquityPoint] | None = None
    timestamps: list[int] | None = None
    equities: list[float] | None = None

    @classmethod
    def of(cls, curve: equity.ShapedCurve) -> Self:
        meta = EquityCurveMeta.of(curve.meta)
        if curve.meta.out_mode is equity.OutMode.SHORT:
            return cls(meta=meta, timestamps=list(curve.timestamps), equities=list(curve.equities))
        points = [
            EquityPoint(timestamp=t, equity=v)
            for t, v in zip(curve.timestamps, curve.equities, strict=True)
        ]
        return cls(meta=meta, points=points)


class ExecuteNotice(WireModel):
    level: str
    code: str
    message: str
    provenance: Literal["execute"]


class ExecuteResults(WireModel):
    """``results`` (ResultMap): the core is always there; metrics only after at least one
    trade, signal fields only with ``storeSignals``."""

    strategyId: str = Field(description="execution-context id strategy:<userId>:<strategyId>")
    instrument: str
    hostName: str
    iops: float
    params: dict[str, ParamValue] | None = None
    notices: list[ExecuteNotice] | None = None
    noticesTruncated: int | None = None
    pnlTotal: float | None = None
    pnlTotalPercent: float | None = None
    totalTrades: int | None = None
    winRate: float | None = None
    sharpeRatio: float | None = None
    sortinoRatio: float | None = None
    cagr: float | None = None
    maxDrawdown: float | None = None
    maxDrawdownPercent: float | None = None
    equityCurve: EquityCurveResult | None = None
    signalCount: int | None = None
    signalsId: str | None = None
    signalsUrl: str | None = None
    signalsUpload: Literal["Done", "Failed", "Skipped"] | None = None
    signalsUploadReason: str | None = None
    signalsUploadedAt: str | None = None

    @classmethod
    def of(cls, result: ExecuteResult, signals_url: str | None) -> Self:
        """The results a client reads: metrics only after a trade, the signals' stored key
        replaced by its signed link."""
        fields: dict[str, Any] = {
            "hostName": result.host_name,
            "iops": result.iops,
            "strategyId": result.strategy_context,
            "instrument": result.instrument,
        }
        if result.params:
            fields["params"] = dict(result.params)
        metrics = result.metrics
        if metrics is not None and metrics.total_trades:
            fields.update(
                pnlTotal=metrics.pnl_total,
                pnlTotalPercent=metrics.pnl_total_percent,
                totalTrades=metrics.total_trades,
                winRate=metrics.win_rate,
                sharpeRatio=metrics.sharpe_ratio,
                sortinoRatio=metrics.sortino_ratio,
                cagr=metrics.cagr,
                maxDrawdown=metrics.max_drawdown,
                maxDrawdownPercent=metrics.max_drawdown_percent,
            )
        if result.equity_curve is not None:
            fields["equityCurve"] = EquityCurveResult.of(result.equity_curve)
        if result.notices:
            fields["notices"] = [
                ExecuteNotice(
                    level=NOTICE_LEVEL, code=NOTICE_CODE, message=text, provenance="execute"
                )
                for text in result.notices
            ]
        if result.notices_truncated is not None:
            fields["noticesTruncated"] = result.notices_truncated
        signals = result.signals
        if signals is not None:
            fields["signalCount"] = signals.count
            if signals.signals_id is not None:
                fields["signalsId"] = signals.signals_id
            if signals_url:
                fields["signalsUrl"] = signals_url
            fields["signalsUpload"] = signals.upload
            if signals.reason is not None:
                fields["signalsUploadReason"] = signals.reason
            if signals.uploaded_at is not None:
                fields["signalsUploadedAt"] = signals.uploaded_at
        return cls(**fields)


class BacktestJobResult(WireModel):
    results: ExecuteResults
    state: BacktestJobState
