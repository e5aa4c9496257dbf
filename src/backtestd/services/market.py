"""Use cases behind the public market-data routes: catalogue reads and hourly downloads."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from backtestd.domain.marketdata import DataKind, Segment
from backtestd.errors import InvalidInput, NotFound
from backtestd.marketdata.catalogue import Catalogue, ExchangeInfo, InstrumentListing
from backtestd.marketdata.segments import decode_lastra, encode_csv, encode_parquet
from backtestd.marketdata.store import HourlyStore
from backtestd.services.rate_limit import RateLimiter

HOUR_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}$")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MEDIA_TYPES = {
    "lastra": "application/vnd.lastra",
    "parquet": "application/vnd.apache.parquet",
    "csv": "text/csv",  # additive (docs/api-decisions.md): what a browser can read itself
}


@dataclass(frozen=True)
class Download:
    content: bytes
    media_type: str
    filename: str


def parse_hour(text: str | None, now: datetime | None = None) -> datetime:
    """``YYYY-MM-DDTHH`` (UTC) to the hour start.

    A missing or malformed hour, or one before the Unix epoch (timestamps are epoch
    milliseconds), is ``InvalidInput`` (400) saying what is expected. A well-formed hour that
    starts after ``now`` is ``NotFound`` (404): the description's "an hour that is not yet
    available gives 404", however far ahead (``9999-12-31T23`` included). It is refused here,
    before any date arithmetic, so no later step can overflow.
    """
    if not text:
        raise InvalidInput(
            "query parameter 'hour' is required: use YYYY-MM-DDTHH in UTC, e.g. hour=2026-01-31T14"
        )
    if not HOUR_PATTERN.match(text):
        raise InvalidInput(
            f"hour {text!r} is malformed: use YYYY-MM-DDTHH in UTC without minutes or zone, "
            "e.g. 2026-01-31T14"
        )
    try:
        hour = datetime.strptime(text, "%Y-%m-%dT%H").replace(tzinfo=UTC)
    except ValueError as exc:
        raise InvalidInput(f"hour {text!r} is not a real date and hour: {exc}") from exc
    if hour < EPOCH:
        raise InvalidInput(
            f"hour {text!r} is out of range: market data hours start at 1970-01-01T00 (UTC); "
            "pick an hour inside the instrument's coverage window"
        )
    now = now or datetime.now(UTC)
    if hour > now:
        raise NotFound(
            f"hour {text!r} is not yet available: it starts after the current time "
            f"({now:%Y-%m-%dT%H:%M} UTC); an hour can be downloaded once it is complete"
        )
    return hour


class MarketService:
    def __init__(
        self,
        catalogue: Catalogue,
        store: HourlyStore,
        limiter: RateLimiter | None = None,
        downloads_per_minute: int = 0,
    ) -> None:
        self._catalogue = catalogue
        self._store = store
        self._limiter = limiter or RateLimiter()
        self._downloads_per_minute = downloads_per_minute

    def admit_download(self, client: str) -> None:
        """Count one anonymous download for ``client`` (its address); 429 over the budget.

        Downloads need no credentials and may generate data, so each client address gets
        ``BACKTESTD_DOWNLOADS_PER_MINUTE`` requests a minute (0 = unlimited).
        """
        if self._downloads_per_minute <= 0:
            return
        self._limiter.check(
            f"download:{client}",
            self._downloads_per_minute,
            what="downloads",
            advice=(
                f"for client address {client}; retry in {{wait}} s, or spread requests out "
                "(each address may burst up to the per-minute budget)"
            ),
        )

    def exchanges(self) -> list[ExchangeInfo]:
        return self._catalogue.exchanges()

    def segments(self, exchange_id: str) -> list[str]:
        """The segments (``spot``, ``futures``) an exchange lists instruments in."""
        found = {i.segment.value for i in self._catalogue.instruments(exchange_id)}
        return [s.value for s in Segment if s.value in found]

    def instruments(self, exchange_id: str, segment: str) -> InstrumentListing:
        try:
            seg = Segment(segment)
        except ValueError as exc:
            raise NotFound(
                f"no segment {segment!r} on exchange {exchange_id!r}; segments are spot, futures"
            ) from exc
        return self._catalogue.listing(exchange_id, seg)

    def download(
        self,
        exchange_id: str,
        kind: DataKind,
        base: str,
        quote: str,
        hour_text: str | None,
        fmt: str | None,
    ) -> Download:
        hour = parse_hour(hour_text)
        fmt = fmt or "lastra"
        if fmt not in MEDIA_TYPES:
            raise InvalidInput(f"format {fmt!r} is not supported; use lastra, parquet or csv")
        instrument = self._catalogue.resolve(exchange_id, base, quote)
        blob = self._store.read(exchange_id, instrument, kind, hour)
        if blob is None:
            raise NotFound(
                f"no {kind.value} for {instrument.symbol} on {exchange_id!r} at {hour_text}: "
                "the hour is not available (outside coverage, not yet complete, or not "
                f"ingested); see GET /v1/exchange/{exchange_id}/instruments for coverage"
            )
        if fmt == "parquet":
            blob = encode_parquet(decode_lastra(kind, hour, blob))
        elif fmt == "csv":
            blob = encode_csv(decode_lastra(kind, hour, blob))
        stem = "_".join(
            [instrument.base, instrument.quote] + ([instrument.settle] if instrument.settle else [])
        )
        suffix = "_klines" if kind is DataKind.KLINES else ""
        filename = f"{stem}_{hour:%Y-%m-%d}_h{hour:%H}{suffix}.{fmt}"
        return Download(blob, MEDIA_TYPES[fmt], filename)
