"""The hourly store over a real SQLite database and object directory with the sim source."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from backtestd.domain.marketdata import DataKind, Instrument
from backtestd.marketdata.segments import decode_lastra
from backtestd.marketdata.sim.generator import SimExchange
from backtestd.marketdata.store import HourlyStore
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.market import MarketHourRepository
from backtestd.storage.objects.store import LocalObjectStore

NOW = datetime(2026, 6, 1, 12, 30, tzinfo=UTC)
BTC = Instrument("BTC", "USDT")


def _store(tmp_path: Path) -> tuple[HourlyStore, Database]:
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(database)
    sim = SimExchange(coverage_start=NOW - timedelta(days=30))
    return HourlyStore(
        LocalObjectStore(tmp_path / "objects"), database, {"sim": sim}, clock=lambda: NOW
    ), database


def test_concurrent_reads_generate_an_hour_once(tmp_path: Path) -> None:
    store, database = _store(tmp_path)
    hour = datetime(2026, 6, 1, 3, tzinfo=UTC)
    results: list[bytes | None] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(store.read("sim", BTC, DataKind.TICKERS, hour))
        )
        for _ in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.generated_count == 1
    assert len(set(results)) == 1
    assert results[0] is not None
    with database.unit_of_work() as uow:
        stats = MarketHourRepository(uow.session).hours(
            "sim", "BTC/USDT", "tickers", hour, hour + timedelta(hours=1)
        )
    frame = decode_lastra(DataKind.TICKERS, hour, results[0])
    assert [s.rows for s in stats] == [frame.rows]
    assert stats[0].bytes == len(results[0])


def test_hours_outside_coverage_or_incomplete_are_absent(tmp_path: Path) -> None:
    store, _ = _store(tmp_path)
    assert store.read("sim", BTC, DataKind.TICKERS, datetime(2026, 6, 1, 12, tzinfo=UTC)) is None
    assert store.read("sim", BTC, DataKind.TICKERS, NOW - timedelta(days=40)) is None
    assert store.read("nowhere", BTC, DataKind.TICKERS, datetime(2026, 6, 1, 3, tzinfo=UTC)) is None
    assert store.generated_count == 0
