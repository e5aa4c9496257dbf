"""The market-data catalogue: exchanges, instruments and coverage windows.

Built from what the store holds: ingested exchanges from the index of stored hours, the
generating ``sim`` source from the coverage it declares (nothing is generated up front). The
last price and 24-hour volume of a ``sim`` instrument come from its last 24 complete hours,
generated on demand and remembered per hour, so a listing costs one new hour per instrument
per hour of wall time. An exchange with a live feed here (``live_segments``) is listed with
those segments, even before any of its hours is stored (a live run is started on what
``GET /exchanges`` lists).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from backtestd.domain.marketdata import DataKind, Instrument, Segment, hour_start
from backtestd.errors import NotFound
from backtestd.marketdata.segments import frame_summary
from backtestd.marketdata.sources import GeneratingSource
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.market import MarketHourRepository

HOUR = timedelta(hours=1)
KNOWN_NAMES = {
    "binance": "Binance",
    "bybit": "Bybit",
    "okx": "OKX",
    "kraken": "Kraken",
    "coinbase": "Coinbase",
}
LISTING_TTL_SECONDS = 10.0


@dataclass(frozen=True)
class ExchangeInfo:
    id: str
    name: str
    description: str
    live_segments: tuple[str, ...] = ()  # segments a live run can be fed from here


@dataclass(frozen=True)
class CoverageWindow:
    start: datetime
    end: datetime


@dataclass(frozen=True)
class InstrumentEntry:
    instrument: Instrument
    tickers: CoverageWindow | None
    klines: CoverageWindow | None
    last_price: float
    volume_24h: float
    # When last_price was last traded: the end of the newest hour the figures come from, so
    # an instrument whose data ended years ago does not look live.
    price_as_of: datetime | None = None


@dataclass(frozen=True)
class InstrumentListing:
    exchange_id: str
    segment: Segment
    updated_at: datetime
    entries: list[InstrumentEntry]


class Catalogue:
    def __init__(
        self,
        database: Database,
        sources: dict[str, GeneratingSource],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        live_segments: Mapping[str, list[str]] | None = None,
    ) -> None:
        self._database = database
        self._sources = sources
        self._live = {k: tuple(v) for k, v in (live_segments or {}).items() if v}
        self._clock = clock
        self._lock = threading.Lock()
        self._sim_summaries: dict[tuple[str, str, datetime], tuple[float | None, float]] = {}
        self._listings: dict[tuple[str, str], tuple[float, InstrumentListing]] = {}
        self._building = threading.Lock()  # one listing built at a time (listing())
        self._exchanges: tuple[float, list[ExchangeInfo]] | None = None

    # -- exchanges --------------------------------------------------------------------

    def exchanges(self) -> list[ExchangeInfo]:
        """Generating sources plus every exchange with stored hours (cached briefly)."""
        cached = self._exchanges
        if cached and time.monotonic() - cached[0] < LISTING_TTL_SECONDS:
            return cached[1]
        infos = [
            ExchangeInfo(
                source.exchange_id,
                "Simulated exchange",
                "Deterministic synthetic market data, generated on demand for any hour "
                "(see docs/sim-exchange.md)",
                self._live.get(source.exchange_id, ()),
            )
            for source in self._sources.values()
        ]
        with self._database.unit_of_work() as uow:
            stored = MarketHourRepository(uow.session).exchange_ids()
        for exchange_id in sorted({*stored, *self._live}):
            if exchange_id in self._sources:
                continue
            name = KNOWN_NAMES.get(exchange_id, exchange_id)
            live = self._live.get(exchange_id, ())
            description = f"{name} history ingested from archive files"
            if live:
                description += " and recorded from its live market streams"
            infos.append(ExchangeInfo(exchange_id, name, description, live))
        result = sorted(infos, key=lambda e: e.id)
        self._exchanges = (time.monotonic(), result)
        return result

    def exchange_exists(self, exchange_id: str) -> bool:
        return any(info.id == exchange_id for info in self.exchanges())

    # -- instruments -------------------------------------------------------------------

    def listing(self, exchange_id: str, segment: Segment) -> InstrumentListing:
        """Instruments of one segment; ``NotFound`` for an unknown exchange.

        One caller builds a listing while the others wait for it and take it: a cold ``sim``
        listing generates a day of tickers per instrument (0.5 s alone), and 30 concurrent
        first requests each built it, 12 s each, holding the thread pool and the GIL from every
        other request meanwhile (docs/benchmarks.md, mixed load). One lock for every listing,
        not one per key: a key per unknown exchange id asked for would be kept for nothing.
        """
        cache_key = (exchange_id, segment.value)
        cached = self._fresh_listing(cache_key)
        if cached is not None:
            return cached
        with self._building:
            cached = self._fresh_listing(cache_key)  # built by the caller we waited for
            if cached is not None:
                return cached
            now_mono = time.monotonic()
            source = self._sources.get(exchange_id)
            if source is not None:
                listing = self._sim_listing(source, segment)
            else:
                listing = self._stored_listing(exchange_id, segment)
            self._listings[cache_key] = (now_mono, listing)
            return listing

    def _fresh_listing(self, cache_key: tuple[str, str]) -> InstrumentListing | None:
        """The cached listing of ``cache_key`` while younger than ``LISTING_TTL_SECONDS``."""
        cached = self._listings.get(cache_key)
        if cached and time.monotonic() - cached[0] < LISTING_TTL_SECONDS:
            return cached[1]
        return None

    def resolve(self, exchange_id: str, base: str, quote: str) -> Instrument:
        """The instrument addressed by a download path (``quote`` may carry ``:SETTLE``)."""
        try:
            wanted = Instrument.parse(f"{base}/{quote}")
        except ValueError as exc:
            raise NotFound(f"no instrument {base}/{quote} on exchange {exchange_id!r}") from exc
        for instrument in self.instruments(exchange_id):
            if instrument == wanted:
                return instrument
        raise NotFound(
            f"no instrument {wanted.symbol} on exchange {exchange_id!r}; "
            f"see GET /v1/exchange/{exchange_id}/instruments"
        )

    def generates(self, exchange_id: str) -> bool:
        """Whether the exchange's hours are generated on demand (``sim``), not only stored."""
        return exchange_id in self._sources

    def native_interval(self, exchange_id: str, instrument: Instrument) -> str | None:
        """The source kline interval label(s) of an instrument: what its stored bars are
        (comma-separated when ingests mixed intervals), or the generating source's own
        (``sim``: ``1s``); None when nothing is known."""
        source = self._sources.get(exchange_id)
        if source is not None:
            return source.native_kline_interval
        with self._database.unit_of_work() as uow:
            labels = MarketHourRepository(uow.session).intervals(
                exchange_id, instrument.symbol, DataKind.KLINES.value
            )
        return labels[0] if len(labels) == 1 else (",".join(sorted(labels)) or None)

    def instruments(self, exchange_id: str) -> list[Instrument]:
        source = self._sources.get(exchange_id)
        if source is not None:
            return source.instruments()
        with self._database.unit_of_work() as uow:
            ranges = MarketHourRepository(uow.session).ranges(exchange_id)
        if not ranges and exchange_id not in self._live:
            raise NotFound(f"no exchange {exchange_id!r}; see GET /v1/exchanges")
        return sorted({Instrument.parse(r.symbol) for r in ranges})

    def _sim_listing(self, source: GeneratingSource, segment: Segment) -> InstrumentListing:
        now = self._clock()
        entries = []
        for instrument in source.instruments():
            if instrument.segment is not segment:
                continue
            windows = {
                kind: source.coverage(instrument, kind, now)
                for kind in (DataKind.TICKERS, DataKind.KLINES)
            }
            last_price, volume = self._sim_recent(source, instrument, now)
            tickers = windows[DataKind.TICKERS]
            entries.append(
                InstrumentEntry(
                    instrument,
                    _window(tickers),
                    _window(windows[DataKind.KLINES]),
                    last_price,
                    volume,
                    tickers[1] if tickers else None,
                )
            )
        return InstrumentListing(source.exchange_id, segment, now, entries)

    def _sim_recent(
        self, source: GeneratingSource, instrument: Instrument, now: datetime
    ) -> tuple[float, float]:
        """Last price and quote volume over the last 24 complete hours of tickers."""
        coverage = source.coverage(instrument, DataKind.TICKERS, now)
        if coverage is None:
            return 0.0, 0.0
        start, end = coverage
        hours = [end - HOUR * (i + 1) for i in range(24)]
        last_price: float | None = None
        volume = 0.0
        for hour in hours:  # newest first
            if hour < start:
                break
            key = (source.exchange_id, instrument.symbol, hour)
            summary = self._sim_summaries.get(key)
            if summary is None:
                frame = source.generate(instrument, DataKind.TICKERS, hour)
                summary = frame_summary(frame)
                with self._lock:
                    self._sim_summaries[key] = summary
            if last_price is None and summary[0] is not None:
                last_price = summary[0]
            volume += summary[1]
        self._forget_old_summaries(end - HOUR * 48)
        return last_price or 0.0, volume

    def _forget_old_summaries(self, horizon: datetime) -> None:
        with self._lock:
            for key in [k for k in self._sim_summaries if k[2] < horizon]:
                del self._sim_summaries[key]

    def _stored_listing(self, exchange_id: str, segment: Segment) -> InstrumentListing:
        with self._database.unit_of_work() as uow:
            repo = MarketHourRepository(uow.session)
            ranges = repo.ranges(exchange_id)
            if not ranges and exchange_id not in self._live:
                raise NotFound(f"no exchange {exchange_id!r}; see GET /v1/exchanges")
            by_symbol: dict[str, dict[str, CoverageWindow]] = {}
            for r in ranges:
                by_symbol.setdefault(r.symbol, {})[r.kind] = CoverageWindow(
                    r.first_hour, r.last_hour + HOUR
                )
            entries = []
            for symbol, windows in sorted(by_symbol.items()):
                instrument = Instrument.parse(symbol)
                if instrument.segment is not segment:
                    continue
                last_price, volume, as_of = self._stored_recent(repo, exchange_id, symbol, windows)
                entries.append(
                    InstrumentEntry(
                        instrument,
                        windows.get(DataKind.TICKERS.value),
                        windows.get(DataKind.KLINES.value),
                        last_price,
                        volume,
                        as_of,
                    )
                )
        return InstrumentListing(exchange_id, segment, self._clock(), entries)

    @staticmethod
    def _stored_recent(
        repo: MarketHourRepository,
        exchange_id: str,
        symbol: str,
        windows: dict[str, CoverageWindow],
    ) -> tuple[float, float, datetime | None]:
        """Prefer tickers (trade-level), else klines, over the last 24 stored hours; with the
        end of the newest stored hour those figures are as of."""
        for kind in (DataKind.TICKERS.value, DataKind.KLINES.value):
            window = windows.get(kind)
            if window is None:
                continue
            stats = repo.hours(exchange_id, symbol, kind, window.end - HOUR * 24, window.end)
            prices = [s.last_price for s in stats if s.last_price is not None]
            volume = sum(s.quote_volume for s in stats)
            return (prices[-1] if prices else 0.0), volume, window.end
        return 0.0, 0.0, None


def _window(bounds: tuple[datetime, datetime] | None) -> CoverageWindow | None:
    if bounds is None:
        return None
    return CoverageWindow(hour_start(bounds[0]), bounds[1])
