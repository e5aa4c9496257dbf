"""The hourly market-data store: lastra objects plus their index in the database.

Hours of a generating source (``sim``) are produced on first request and kept in a bounded
least-recently-used cache (``generated_cache.py``, ``BACKTESTD_SIM_CACHE_MAX_BYTES``); hours of
ingested exchanges exist only once written and are never evicted. Concurrent first requests for
the same hour in one process wait on a per-hour lock and generate it once; publication is an
atomic rename, so no reader ever sees a half-written file (and because generation is
deterministic, two processes racing on the same hour write identical bytes).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from backtestd.domain.catalogue import HourStats
from backtestd.domain.marketdata import DataKind, HourFrame, Instrument, hour_start
from backtestd.marketdata.generated_cache import GeneratedHourCache
from backtestd.marketdata.segments import decode_lastra, encode_lastra, frame_summary
from backtestd.marketdata.sources import GeneratingSource
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.market import MarketHourRepository
from backtestd.storage.objects.keys import market_hour_key
from backtestd.storage.objects.store import ObjectStore

log = logging.getLogger(__name__)


class _KeyedLocks:
    """One lock per key, created on demand (single-flight for hour generation)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def get(self, key: str) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.Lock()
            return lock


class HourlyStore:
    def __init__(
        self,
        objects: ObjectStore,
        database: Database,
        sources: dict[str, GeneratingSource],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        generated_max_bytes: int = 1024**3,
    ) -> None:
        self._objects = objects
        self._database = database
        self.sources = sources
        self._clock = clock
        self.generated_cache = GeneratedHourCache(
            objects, database, list(sources), generated_max_bytes, clock
        )
        self._locks = _KeyedLocks()
        self.generated_count = 0

    def read(
        self, exchange_id: str, instrument: Instrument, kind: DataKind, hour: datetime
    ) -> bytes | None:
        """The lastra bytes of one hour, generating it from the source if needed."""
        return self._lookup(exchange_id, instrument, kind, hour_start(hour))[0]

    def read_frame(
        self, exchange_id: str, instrument: Instrument, kind: DataKind, hour: datetime
    ) -> HourFrame | None:
        """The decoded hour (a freshly generated hour is returned without re-decoding)."""
        hour = hour_start(hour)
        blob, generated = self._lookup(exchange_id, instrument, kind, hour)
        if generated is not None:
            return generated
        return None if blob is None else decode_lastra(kind, hour, blob)

    def _lookup(
        self, exchange_id: str, instrument: Instrument, kind: DataKind, hour: datetime
    ) -> tuple[bytes | None, HourFrame | None]:
        """Stored bytes, or the bytes and frame of a just-generated hour; Nones if unavailable."""
        key = market_hour_key(exchange_id, instrument, kind, hour)
        blob = self._objects.get(key)
        source = self.sources.get(exchange_id)
        if blob is not None:
            if source is not None:
                self.generated_cache.used(exchange_id, instrument, kind, hour)
            return blob, None
        if source is None or not source.has_hour(instrument, kind, hour, self._clock()):
            return None, None
        with self._locks.get(key):
            blob = self._objects.get(key)
            if blob is not None:
                return blob, None
            frame, blob = self._generate(exchange_id, source, instrument, kind, hour)
        self.generated_cache.added()
        return blob, frame

    def _generate(
        self,
        exchange_id: str,
        source: GeneratingSource,
        instrument: Instrument,
        kind: DataKind,
        hour: datetime,
    ) -> tuple[HourFrame, bytes]:
        """Generate, publish and index one hour; the caller holds the hour's lock."""
        started = time.perf_counter()
        frame = source.generate(instrument, kind, hour)
        blob = self._publish(exchange_id, instrument, frame, None)[0]
        self.generated_count += 1
        log.info(
            "generated %s %s %s %s: %d rows in %.1f ms",
            exchange_id,
            instrument.symbol,
            kind.value,
            f"{hour:%Y-%m-%dT%H}",
            frame.rows,
            (time.perf_counter() - started) * 1000,
        )
        return frame, blob

    def stats(
        self, exchange_id: str, instrument: Instrument, kind: DataKind, hour: datetime
    ) -> HourStats | None:
        """The index entry of one stored hour (its row count, native interval), if stored."""
        hour = hour_start(hour)
        with self._database.unit_of_work() as uow:
            found = MarketHourRepository(uow.session).hours(
                exchange_id, instrument.symbol, kind.value, hour, hour + timedelta(hours=1)
            )
        return found[0] if found else None

    def write(
        self, exchange_id: str, instrument: Instrument, frame: HourFrame, interval: str | None
    ) -> HourStats:
        """Store an ingested hour (replacing any earlier version of it)."""
        with self._locks.get(market_hour_key(exchange_id, instrument, frame.kind, frame.hour)):
            return self._publish(exchange_id, instrument, frame, interval)[1]

    def _publish(
        self, exchange_id: str, instrument: Instrument, frame: HourFrame, interval: str | None
    ) -> tuple[bytes, HourStats]:
        """Encode, store and index one hour; returns the bytes and the recorded stats."""
        blob = encode_lastra(frame)
        self._objects.put(market_hour_key(exchange_id, instrument, frame.kind, frame.hour), blob)
        last_price, quote_volume = frame_summary(frame)
        stats = HourStats(
            exchange_id=exchange_id,
            symbol=instrument.symbol,
            kind=frame.kind.value,
            hour=frame.hour,
            rows=frame.rows,
            bytes=len(blob),
            last_price=last_price,
            quote_volume=quote_volume,
            interval=interval,
        )
        with self._database.unit_of_work() as uow:
            MarketHourRepository(uow.session).put(stats, self._clock())
        return blob, stats
