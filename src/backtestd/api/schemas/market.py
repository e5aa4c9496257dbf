"""Wire shapes of the public market-data catalogue."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from backtestd.api.schemas.common import HalLink, WireModel


class Exchange(WireModel):
    id: str
    name: str
    description: str
    venueType: Literal["cex", "dex"] = "cex"  # every exchange this service has is a cex
    segments: list[str] = Field(default_factory=list)
    # Segments a live run can be fed from here (GET /exchanges; docs/live-feeds.md).
    liveSegments: list[str] = Field(default_factory=list)


class CoverageWindow(WireModel):
    from_: datetime | None = Field(default=None, alias="from")
    to: datetime | None = None
    inactiveSince: datetime | None = None


class Coverage(WireModel):
    tickers: CoverageWindow | None = None
    klines: CoverageWindow | None = None


class Instrument(WireModel):
    id: str
    symbol: str  # = id (newer clients read it)
    base: str
    quote: str
    settle: str | None = None  # perpetuals: the settlement asset
    coverage: Coverage
    lastPrice: float
    volume24h: float
    lastPriceAt: datetime | None = None  # the figures are as of this time (end of the data)


class InstrumentListMeta(WireModel):
    updatedAt: datetime
    exchange: str
    segment: Literal["spot", "futures"]
    venueType: Literal["cex", "dex"] = "cex"


class InstrumentLinks(WireModel):
    self_: HalLink = Field(alias="self")
    spot: HalLink
    futures: HalLink


class InstrumentListResponse(WireModel):
    data: list[Instrument]
    meta: InstrumentListMeta
    links: InstrumentLinks = Field(alias="_links")
