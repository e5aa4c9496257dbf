"""Wire shapes of prepare and execute."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr

from backtestd.api.schemas.common import WireModel

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


class BaseConfig(WireModel):
    initialFunding: float | None = None
    feeRate: float | None = None
    buyFeeRate: float | None = None
    sellFeeRate: float | None = None
    feeLeg: Literal["BASE", "QUOTE", "RECEIVED"] | None = None
    percentAmountToLock: float | None = None


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


class PrepareJobState(WireModel):
    contextId: str
    status: Literal["New", "Started", "Completed", "Failed", "Aborted"]
    statusDetail: str | None
    size: int
    completed: int
    startTime: str | None
    endTime: str | None
    retryable: bool | None = None
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


class BacktestJobResult(WireModel):
    results: dict[str, Any]
    state: dict[str, Any]
