"""Market-data sources the store can generate hours from on demand (the ``sim`` exchange).

A source is anything with this shape; ingested exchanges have no source, only stored hours.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from backtestd.domain.marketdata import DataKind, HourFrame, Instrument


class GeneratingSource(Protocol):
    exchange_id: str

    def instruments(self) -> list[Instrument]: ...

    def coverage(
        self, instrument: Instrument, kind: DataKind, now: datetime
    ) -> tuple[datetime, datetime] | None: ...

    def has_hour(
        self, instrument: Instrument, kind: DataKind, hour: datetime, now: datetime
    ) -> bool: ...

    def generate(self, instrument: Instrument, kind: DataKind, hour: datetime) -> HourFrame: ...
