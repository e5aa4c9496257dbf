"""Every object-store key is built here, so the layout is documented in one place.

Layout::

    marketdata/{exchange}/{kind}/{SYMBOL}/{YYYY-MM-DD}/{HH}.lastra
        SYMBOL is BASE_QUOTE for spot and BASE_QUOTE_SETTLE for perpetuals.
"""

from __future__ import annotations

from datetime import datetime

from backtestd.domain.marketdata import DataKind, Instrument


def symbol_path(instrument: Instrument) -> str:
    parts = [instrument.base, instrument.quote]
    if instrument.settle:
        parts.append(instrument.settle)
    return "_".join(parts)


def market_hour_key(
    exchange_id: str, instrument: Instrument, kind: DataKind, hour: datetime
) -> str:
    return (
        f"marketdata/{exchange_id}/{kind.value}/{symbol_path(instrument)}/"
        f"{hour:%Y-%m-%d}/{hour:%H}.lastra"
    )
