"""Wire shapes of prepare and execute."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr

from backtestd.api.schemas.common import WireModel
from backtestd.domain import backtests

ParamValue = StrictBool | StrictInt | StrictFloat | StrictStr


class PrepareRequest(WireModel):
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
            self.resample, bool(self.differential), self.outMode or "ARRAY"
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


class ExecuteBacktestBody(WireModel):
    prepareJobId: str
    strategyId: str
    storeSignals: bool = False
    equityCurve: EquityCurveOptions | None = None
    baseConfig: BaseConfig | None = None
    params: dict[str, ParamValue] | None = None


class HourWithoutData(WireModel):
    hour: str
    expected: int
    rationale: Literal["low_activity", "pending_conversion", "unknown"]


class BacktestJobState(WireModel):
    """``state`` of a prepare or execute job (JobState)."""

    contextId: str
    status: Literal["New", "Started", "Completed", "Failed", "Aborted"]
    statusDetail: str | None
    size: int
    completed: int
    startTime: str | None
    endTime: str | None
    retryable: bool | None = None


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


class CancelBacktestResponse(WireModel):
    status: Literal["cancelling"] = "cancelling"
    jobId: str


class EquityPoint(WireModel):
    timestamp: int
    equity: float


class EquityCurveMeta(WireModel):
    inputPointCount: int
    outputPointCount: int
    resampled: bool
    differential: bool
    outMode: Literal["ARRAY", "SHORT"]


class EquityCurveResult(WireModel):
    """``points`` (``ARRAY``) or ``timestamps`` + ``equities`` (``SHORT``), always ``meta``."""

    meta: EquityCurveMeta
    points: list[EquityPoint] | None = None
    timestamps: list[int] | None = None
    equities: list[float] | None = None


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


class BacktestJobResult(WireModel):
    results: ExecuteResults
    state: BacktestJobState
