"""Market-data sources the store can generate hours from on demand (the ``sim`` exchange).

A source is anything with this shape; ingested exchanges have no source, only stored hours.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

from backtestd.domain.marketdata import DataKind, HourFrame, Instrument, hour_start
from backtestd.settings import Settings


class GeneratingSource(Protocol):
    exchange_id: str
    native_kline_interval: str  # the width of the kline bars it generates, e.g. "1s"

    def instruments(self) -> list[Instrument]: ...

    def coverage(
        self, instrument: Instrument, kind: DataKind, now: datetime
    ) -> tuple[datetime, datetime] | None: ...

    def has_hour(
        self, instrument: Instrument, kind: DataKind, hour: datetime, now: datetime
    ) -> bool: ...

    def generate(self, instrument: Instrument, kind: DataKind, hour: datetime) -> HourFrame: ...


def build_sources(settings: Settings) -> dict[str, GeneratingSource]:
    """The generating sources this deployment serves (``sim`` unless disabled)."""
    if not settings.sim_enabled:
        return {}
    from backtestd.marketdata.sim.generator import SimExchange

    start = hour_start(datetime.now(UTC) - timedelta(days=settings.sim_coverage_days))
    sim = SimExchange(coverage_start=start, seed=settings.sim_seed)
    return {sim.exchange_id: sim}
