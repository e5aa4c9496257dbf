"""What the catalogue knows about stored market-data hours."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class HourStats:
    """Summary of one stored hour, recorded when the hour is written."""

    exchange_id: str
    symbol: str
    kind: str
    hour: datetime
    rows: int
    bytes: int
    last_price: float | None
    quote_volume: float
    interval: str | None = None


@dataclass(frozen=True)
class StoredRange:
    """First and last stored hour (starts) of one (exchange, symbol, kind)."""

    exchange_id: str
    symbol: str
    kind: str
    first_hour: datetime
    last_hour: datetime
    interval: str | None
