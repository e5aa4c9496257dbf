"""Recording what a live feed delivers as hourly history in the store.

A live exchange feed is the only copy of its data, so it writes what it delivered into the same
hourly lastra files the download routes serve and prepares read (through
:meth:`HourlyStore.write`, as archive ingest does): delivered updates become rows, one per
instrument and second — tickers with the ``TICKER_COLUMNS`` of the update, klines as 1-second
bars (interval ``1s``; ``closeTs`` is not stored, it is open time + 999 ms).

An hour is written when the feed's clock passes its end, and whatever a stream holds when it
ends (so a stopped run loses nothing it saw; the hour may then be partial). Writing *merges*
with what is stored: rows of seconds the stored hour already has are kept as stored (another
run's recording, or an archive import, is never overwritten), new seconds are added. An hour of
klines stored at another interval (an imported ``1m`` archive) is left alone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from backtestd.domain.marketdata import (
    COLUMNS_BY_KIND,
    HOUR_MS,
    DataType,
    HourFrame,
    Instrument,
    column_dtype,
    hour_from_ms,
)
from backtestd.marketdata.live.feed import LiveUpdate
from backtestd.marketdata.store import HourlyStore

log = logging.getLogger(__name__)

KLINE_INTERVAL = "1s"
_MERGE = threading.Lock()
"""Serialises read-merge-write of recorded hours in this process (two runs may record the same
instrument; an hour is written about once an hour per instrument, so one lock is enough)."""

_Key = tuple[Instrument, DataType, int]  # instrument, kind, hour start ms


def frame_of(kind: DataType, hour: datetime, updates: Sequence[LiveUpdate]) -> HourFrame:
    """The stored hour frame of ``updates`` (all of one instrument, kind and hour, ts-sorted)."""
    names = COLUMNS_BY_KIND[kind.kind]
    skip = 1 if kind is DataType.KLINE else 0  # klines carry closeTs first; it is not stored
    columns = {"ts": np.array([u.ts_ms for u in updates], dtype=column_dtype("ts"))}
    for offset, name in enumerate(names[1:]):
        values = [u.values[skip + offset] for u in updates]
        columns[name] = np.array(values, dtype=column_dtype(name))
    return HourFrame(kind.kind, hour, columns)


def merge_frames(stored: HourFrame, recorded: HourFrame) -> HourFrame:
    """``stored`` plus the rows of ``recorded`` whose second ``stored`` has no row in."""
    taken = np.unique(stored.columns["ts"] // 1000)
    new = ~np.isin(recorded.columns["ts"] // 1000, taken)
    columns = {
        name: np.concatenate([stored.columns[name], recorded.columns[name][new]])
        for name in stored.columns
    }
    order = np.argsort(columns["ts"], kind="stable")
    return HourFrame(stored.kind, stored.hour, {n: v[order] for n, v in columns.items()})


class HourRecorder:
    """Buffers delivered updates per instrument, kind and hour; writes hours to the store."""

    def __init__(self, store: HourlyStore, exchange_id: str) -> None:
        self._store = store
        self.exchange_id = exchange_id
        self._hours: dict[_Key, dict[int, LiveUpdate]] = {}
        self._lock = threading.Lock()
        self.written_hours = 0

    def add(self, update: LiveUpdate) -> None:
        """Keep ``update`` (the first one of its second wins, as the feed sends one a second)."""
        key = (update.instrument, update.kind, update.ts_ms // HOUR_MS * HOUR_MS)
        with self._lock:
            self._hours.setdefault(key, {}).setdefault(update.second, update)

    def buffered(
        self, instrument: Instrument, kind: DataType, from_ms: int, to_ms: int
    ) -> list[LiveUpdate]:
        """Buffered (not yet written) updates with ``from_ms <= ts < to_ms``, oldest first."""
        with self._lock:
            found = [
                u
                for (i, k, _), rows in self._hours.items()
                if i == instrument and k is kind
                for u in rows.values()
                if from_ms <= u.ts_ms < to_ms
            ]
        return sorted(found, key=lambda u: u.ts_ms)

    def flush(self, now_ms: int | None = None) -> int:
        """Write every buffered hour that ended by ``now_ms`` (all of them if ``None``);
        returns the number of hours written."""
        with self._lock:
            keys = [k for k in self._hours if now_ms is None or k[2] + HOUR_MS <= now_ms]
            taken = [(k, self._hours.pop(k)) for k in keys]
        for key, rows in taken:
            self._write(key, sorted(rows.values(), key=lambda u: u.ts_ms))
        return len(taken)

    def _write(self, key: _Key, updates: list[LiveUpdate]) -> None:
        instrument, kind, hour_ms = key
        hour = hour_from_ms(hour_ms)
        interval = KLINE_INTERVAL if kind is DataType.KLINE else None
        frame = frame_of(kind, hour, updates)
        with _MERGE:
            stats = self._store.stats(self.exchange_id, instrument, kind.kind, hour)
            if stats is not None and stats.interval != interval:
                log.warning(
                    "not recording %s %s %s %s: the stored hour has interval %s, the feed %s",
                    self.exchange_id,
                    instrument.symbol,
                    kind.kind.value,
                    f"{hour:%Y-%m-%dT%H}",
                    stats.interval,
                    interval,
                )
                return
            if stats is not None:
                stored = self._store.read_frame(self.exchange_id, instrument, kind.kind, hour)
                if stored is not None:
                    frame = merge_frames(stored, frame)
            self._store.write(self.exchange_id, instrument, frame, interval)
        self.written_hours += 1
