"""Wire shapes of the strategy routes."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from backtestd.api.schemas.common import HalLink, WireModel

ValidationValue = Literal["not_validated", "pending", "passed", "failed"]
SourceName = Literal["Ticker", "KLine", "FundingRate"]


class DeclaredProperty(WireModel):
    name: str
    description: str
    defaultValue: str | None = None
    reflected: bool
    min: float | None = None
    max: float | None = None
    step: float | None = None


class CompileStrategyResponse(WireModel):
    strategyId: str
    declaredProperties: list[DeclaredProperty]
    warnings: list[str] | None = None  # QTScript compile warnings (extra key, tolerated)
    requires: list[Literal["indicators.pro"]] | None = None


class Notice(WireModel):
    level: str
    code: str
    message: str
    provenance: Literal["compile-dry-run", "execute"] | None = None


class StrategyLinks(WireModel):
    code: HalLink


class StrategyState(WireModel):
    strategyId: str
    # Extra key: the QTScript title or the Java class name, for people (see api-decisions).
    name: str | None = None
    validation: ValidationValue
    compiledAt: datetime | None = None
    validatedAt: datetime | None = None
    requiredSources: list[SourceName] | None = None
    detail: str | None = None
    notices: list[Notice] | None = None
    # Extra key (the official clients tolerate extra keys): the properties the strategy
    # declares, as in the registration response, so a sweep form can build its axes.
    declaredProperties: list[DeclaredProperty] | None = None
    links: StrategyLinks | None = Field(default=None, alias="_links")


class StrategySummary(WireModel):
    strategyId: str
    name: str | None = None  # extra key, as in StrategyState
    compiledAt: datetime
    requiredSources: list[str] | None = None
    deletedAt: datetime | None = None


class StrategyList(WireModel):
    strategies: list[StrategySummary]


class DeleteStrategyResponse(WireModel):
    strategyId: str
    deleted: bool


class StrategyCode(WireModel):
    strategyId: str
    code: str
