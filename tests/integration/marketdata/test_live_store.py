"""Live feeds over a real hourly store: the sim feed publishes the rows downloads serve, and the
catalogue lists what can be fed live."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from backtestd.domain.marketdata import HOUR_MS, DataKind, DataType, Instrument, Segment, hour_ms
from backtestd.marketdata.catalogue import Catalogue
from backtestd.marketdata.live import LiveUpdate, MarketClock, live_feed_for, live_segment_map
from backtestd.marketdata.segments import decode_lastra
from backtestd.marketdata.sim.generator import SimExchange
from backtestd.marketdata.store import HourlyStore
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.objects.store import LocalObjectStore

NOW = datetime(2026, 6, 2, 14, 0, 30, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)
ETH = Instrument.parse("ETH/USDT")


def _database(tmp_path: Path) -> Database:
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(database)
    return database


def test_sim_feed_publishes_the_stored_hour_rows_downloads_serve(tmp_path: Path) -> None:
    sim = SimExchange(coverage_start=NOW - timedelta(days=2))
    store = HourlyStore(
        LocalObjectStore(tmp_path / "objects"), _database(tmp_path), {"sim": sim}, clock=lambda: NOW
    )
    clock = MarketClock(anchor_ms=NOW_MS, wall=lambda: NOW_MS / 1000)  # stands still
    feed = live_feed_for("sim", "spot", Settings(), store=store, clock=clock, sources={"sim": sim})
    assert feed is not None
    hour = datetime(2026, 6, 2, 13, tzinfo=UTC)  # the last complete hour
    stop = threading.Event()
    updates: list[LiveUpdate] = []
    for event in feed.stream([ETH], DataType.KLINE, hour_ms(hour), stop):
        assert isinstance(event, LiveUpdate)
        updates.append(event)
        if event.ts_ms >= hour_ms(hour) + HOUR_MS:
            stop.set()  # into the hour in progress (generated, not stored)
    blob = store.read("sim", ETH, DataKind.KLINES, hour)  # what GET /exchange/sim/klines serves
    assert blob is not None
    stored = decode_lastra(DataKind.KLINES, hour, blob)
    in_hour = [u for u in updates if u.ts_ms < hour_ms(hour) + HOUR_MS]
    assert [u.ts_ms for u in in_hour] == stored.columns["ts"].tolist()
    for name, index in (("open", 1), ("high", 2), ("low", 3), ("close", 4), ("volume", 5)):
        assert [u.values[index] for u in in_hour] == stored.columns[name].tolist()
    assert [u.values[0] for u in in_hour] == (stored.columns["ts"] + 999).tolist()
    assert store.generated_count == 1  # the complete hour came through the store


def test_catalogue_lists_live_segments_and_a_live_only_exchange(tmp_path: Path) -> None:
    sim = SimExchange(coverage_start=NOW - timedelta(days=2))
    live = live_segment_map(Settings(live_binance_enabled=True))
    catalogue = Catalogue(_database(tmp_path), {"sim": sim}, clock=lambda: NOW, live_segments=live)
    by_id = {e.id: e for e in catalogue.exchanges()}
    assert by_id["sim"].live_segments == ("spot",)
    assert by_id["binance"].live_segments == ("spot",)  # listed before any hour is recorded
    assert catalogue.instruments("binance") == []
    assert catalogue.listing("binance", Segment.SPOT).entries == []
    (tmp_path / "other").mkdir()
    plain = Catalogue(_database(tmp_path / "other"), {"sim": sim}, clock=lambda: NOW)
    assert [(e.id, e.live_segments) for e in plain.exchanges()] == [("sim", ())]
