"""Ingest of downloaded exchange archives into the hourly store."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from backtestd.domain.datasets import USER_EXCHANGE
from backtestd.domain.marketdata import Instrument
from backtestd.errors import InvalidInput
from backtestd.marketdata.ingest.binance import ArchiveFormatError, parse_archive
from backtestd.marketdata.store import HourlyStore

_EXCHANGE_ID = re.compile(r"^[a-z][a-z0-9_-]{1,31}$")


@dataclass(frozen=True)
class IngestReport:
    instrument: str
    kind: str
    hours: int
    rows: int
    first_hour: datetime
    last_hour: datetime


class IngestService:
    def __init__(self, store: HourlyStore) -> None:
        self._store = store

    def ingest_file(
        self,
        exchange_id: str,
        path: Path,
        instrument: str | None,
        on_hour: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Store one archive file hour by hour; ``on_hour(done, total)`` follows the writes."""
        if not _EXCHANGE_ID.match(exchange_id):
            raise InvalidInput(
                f"exchange id {exchange_id!r} is not valid: use 2-32 lower-case letters, digits, "
                "'_' or '-', starting with a letter"
            )
        if exchange_id in self._store.sources or exchange_id == USER_EXCHANGE:
            raise InvalidInput(
                f"exchange id {exchange_id!r} is reserved; ingest under another id, e.g. binance"
            )
        if not path.is_file():
            raise InvalidInput(f"{path} is not a file")
        try:
            override = Instrument.parse(instrument) if instrument else None
            parsed = parse_archive(path, override)
        except (ArchiveFormatError, ValueError) as exc:
            raise InvalidInput(str(exc)) from exc
        if not parsed.frames:
            raise InvalidInput(f"{path.name} holds no rows")
        for done, frame in enumerate(parsed.frames, 1):
            self._store.write(exchange_id, parsed.instrument, frame, parsed.interval)
            if on_hour is not None:
                on_hour(done, len(parsed.frames))
        return IngestReport(
            instrument=parsed.instrument.symbol,
            kind=parsed.kind.value if parsed.interval is None else f"klines {parsed.interval}",
            hours=len(parsed.frames),
            rows=sum(f.rows for f in parsed.frames),
            first_hour=parsed.frames[0].hour,
            last_hour=parsed.frames[-1].hour,
        )
