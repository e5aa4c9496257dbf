"""Wire shapes of the live-execution routes (``spec/live-execution.md`` §4).

Optional fields are omitted, never ``null`` (routes answer with ``exclude_none``); the few
nullable values of the contract (``LiveSignal.instrument``, ``kind``, ``order``) are built as
plain dicts by :mod:`backtestd.api.live_wire` so that their ``null`` survives.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, JsonValue, StrictBool, StrictInt, StrictStr

from backtestd.api.schemas.backtests import EquityCurveMeta, EquityPoint
from backtestd.api.schemas.common import HalLink, RequestBody, WireModel


class LiveSourceRequest(RequestBody):
    venueType: StrictStr
    exchange: StrictStr
    segment: StrictStr
    type: StrictStr
    instruments: list[StrictStr] | None = None


class LivePaperConfigRequest(RequestBody):
    initialFunding: float | None = Field(default=None, gt=0, le=1e9)
    feeRate: float | None = Field(default=None, ge=0)
    buyFeeRate: float | None = Field(default=None, ge=0)
    sellFeeRate: float | None = Field(default=None, ge=0)
    feeLeg: StrictStr | None = None
    percentAmountToLock: float | None = Field(default=None, gt=0, le=100)
    output: Literal["separate", "mix"] | None = None
    accounts: Literal["currency", "instrument"] | None = None


class StartLiveRequest(RequestBody):
    sources: list[LiveSourceRequest]
    params: dict[str, JsonValue] | None = None
    visibility: Literal["private", "public"] | None = None
    relay: StrictBool | None = None
    sandbox: StrictBool | None = None
    stream: StrictBool | None = None
    warmFrom: StrictInt | None = Field(default=None, ge=0, le=3600)
    sandboxMinutes: StrictInt | None = Field(default=None, ge=5, le=1440)
    name: StrictStr | None = None
    description: StrictStr | None = None
    paper: LivePaperConfigRequest | None = None


class UpdateLiveRequest(RequestBody):
    visibility: Literal["private", "public"] | None = None
    name: StrictStr | None = None
    description: StrictStr | None = None


class UpdateLiveParamsRequest(RequestBody):
    params: dict[str, JsonValue]


class SendLiveCommandRequest(RequestBody):
    command: StrictStr
    properties: dict[str, JsonValue] | None = None


class LiveSource(WireModel):
    venueType: str
    exchange: str
    segment: str
    type: str
    instruments: list[str]


class LivePaperConfig(WireModel):
    initialFunding: float
    buyFeeRate: float
    sellFeeRate: float
    feeLeg: str
    output: str
    percentAmountToLock: float | None = None
    accounts: str | None = None


class LiveRunStats(WireModel):
    processed: int
    opsPerSecond: float
    instrumentsSeen: int
    asOfMs: int
    stale: bool
    progressedAtMs: int | None = None


class LiveRun(WireModel):
    """Shared by ``LiveRun`` (stop), ``LiveRunWithStream`` and ``LiveRunDetail``."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    strategyId: str
    runId: str
    visibility: str
    stage: str
    state: str
    desired: str
    sources: list[LiveSource]
    params: dict[str, JsonValue]
    paramsVersion: int
    relay: bool
    startedAtMs: int
    name: str | None = None
    description: str | None = None
    reason: str | None = None
    gate: dict[str, object] | None = None
    paper: LivePaperConfig | None = None
    stats: LiveRunStats | None = None
    warmFrom: int | None = None
    sandboxMinutes: int | None = None
    streamUrl: str | None = None
    updatedAtMs: int | None = None


class LiveRunCompact(WireModel):
    runId: str
    visibility: str
    stage: str
    state: str
    sources: list[LiveSource]
    name: str | None = None
    description: str | None = None


class LiveRunSummary(WireModel):
    strategyId: str
    runId: str
    visibility: str
    stage: str
    state: str
    desired: str
    sources: list[LiveSource]
    createdAtMs: int
    startedAtMs: int
    name: str | None = None
    description: str | None = None
    reason: str | None = None
    # additive (docs/live.md): the gate verdict, so a list need not read every run
    gate: dict[str, object] | None = None


class PublicLiveRun(WireModel):
    runId: str
    sources: list[LiveSource]
    state: str
    createdAtMs: int
    name: str | None = None
    description: str | None = None


class NextLink(WireModel):
    next: HalLink | None = None


class LiveListResponse(WireModel):
    runs: list[LiveRunSummary]
    links: NextLink | None = Field(default=None, alias="_links")


class PublicLiveListResponse(WireModel):
    runs: list[PublicLiveRun]
    links: NextLink | None = Field(default=None, alias="_links")


class LiveParamsUpdateResult(WireModel):
    runId: str
    paramsVersion: int
    effectiveAtMs: int


class LiveCommandResult(WireModel):
    runId: str
    commandId: str
    effectiveAtMs: int


class LiveConnectionToken(WireModel):
    token: str
    expiresAtMs: int


class LiveStreamUrl(WireModel):
    streamUrl: str


class LiveStreamRevoked(WireModel):
    runId: str
    revoked: bool


class LiveSignalPageDoc(WireModel):
    """``LiveSignalPage`` for the OpenAPI description (the route writes the JSON itself so
    that a signal's ``null`` instrument, kind and order survive)."""

    signals: list[dict[str, JsonValue]]
    availableSinceMs: int | None = None
    links: NextLink | None = Field(default=None, alias="_links")


class LivePaperKpi(WireModel):
    """Every key optional; Sharpe and Sortino (per trade) absent until two closed trades."""

    totalTrades: int | None = None
    winCount: int | None = None
    lossCount: int | None = None
    winRate: float | None = None
    pnlTotal: float | None = None
    pnlTotalPercent: float | None = None
    sharpeRatio: float | None = None
    sortinoRatio: float | None = None
    cagr: float | None = None
    maxDrawdown: float | None = None
    maxDrawdownPercent: float | None = None


class LivePaperOpenPosition(WireModel):
    base: float
    cost: float
    markPrice: float | None = None
    markedAtMs: int | None = None
    unrealisedPnl: float | None = None


class LivePaperPosition(LivePaperOpenPosition):
    instrument: str


class LivePaperInstrument(WireModel):
    instrument: str
    trades: int
    wins: int
    losses: int
    realisedPnl: float
    contributionPct: float | None = None
    unrealisedPnl: float | None = None
    totalPnl: float | None = None
    openPosition: LivePaperOpenPosition | None = None
    kpi: LivePaperKpi | None = None


class LivePaperAccount(WireModel):
    currency: str
    initialFunding: float
    equity: float
    realisedPnl: float
    trades: int
    gaps: int
    openPositions: list[LivePaperPosition]
    instrument: str | None = None
    equityAtMs: int | None = None
    equityKind: Literal["equity", "mark"] | None = None
    unrealisedPnl: float | None = None
    totalPnl: float | None = None
    kpi: LivePaperKpi | None = None
    instruments: list[LivePaperInstrument] | None = None


class LivePaper(WireModel):
    runId: str
    stage: Literal["SANDBOX", "LIVE"]
    accounts: list[LivePaperAccount]


class LivePaperEquityCurve(WireModel):
    """``points`` (``ARRAY``) or ``timestamps`` + ``equities`` (``SHORT``), always ``meta``."""

    meta: EquityCurveMeta
    measure: Literal["equity", "realisedPnl", "totalPnl"]
    gaps: list[int]
    points: list[EquityPoint] | None = None
    timestamps: list[int] | None = None
    equities: list[float] | None = None
    currency: str | None = None
    instrument: str | None = None
    links: NextLink | None = Field(default=None, alias="_links")
