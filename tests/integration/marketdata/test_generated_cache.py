"""Generated (sim) hours are a bounded LRU cache; ingested hours are never evicted.

Real SQLite database, real object directory and the real sim generator.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from backtestd.domain.marketdata import DataKind, Instrument
from backtestd.marketdata.generated_cache import LOW_WATER
from backtestd.marketdata.sim.generator import SimExchange
from backtestd.marketdata.store import HourlyStore
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.market import MarketHourRepository
from backtestd.storage.objects.keys import market_hour_key
from backtestd.storage.objects.store import LocalObjectStore

NOW = datetime(2026, 6, 1, 12, 30, tzinfo=UTC)
BTC = Instrument("BTC", "USDT")
HOURS = [datetime(2026, 5, 30, h, tzinfo=UTC) for h in range(12)]


class Clock:
    """Advances a minute per call, so every store and use gets a distinct time."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


def _store(tmp_path: Path, max_bytes: int) -> tuple[HourlyStore, Database, LocalObjectStore]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(database)
    objects = LocalObjectStore(tmp_path / "objects")
    sim = SimExchange(coverage_start=NOW - timedelta(days=30))
    store = HourlyStore(
        objects, database, {"sim": sim}, clock=Clock(), generated_max_bytes=max_bytes
    )
    return store, database, objects


def _sizes(tmp_path: Path) -> list[int]:
    """Byte sizes of the hours the uncapped store produces, generated in a scratch store."""
    store, _, _ = _store(tmp_path / "scratch", max_bytes=1 << 40)
    return [len(store.read("sim", BTC, DataKind.TICKERS, h) or b"") for h in HOURS]


def _on_disk(objects: LocalObjectStore, exchange: str) -> int:
    root = objects.root / "marketdata" / exchange
    return sum(p.stat().st_size for p in root.rglob("*.lastra"))


def test_generated_hours_stay_within_budget_and_evict_least_recently_used(
    tmp_path: Path,
) -> None:
    sizes = _sizes(tmp_path)
    budget = sum(sizes[:5])  # room for about five hours
    store, database, objects = _store(tmp_path / "capped", budget)
    first = store.read("sim", BTC, DataKind.TICKERS, HOURS[0])
    for i, hour in enumerate(HOURS[1:], start=1):
        store.read("sim", BTC, DataKind.TICKERS, hour)
        if i % 2 == 0:  # keep the first hour in use: it must survive every eviction
            store.read("sim", BTC, DataKind.TICKERS, HOURS[0])
        assert _on_disk(objects, "sim") <= budget
    with database.unit_of_work() as uow:
        repo = MarketHourRepository(uow.session)
        assert repo.total_bytes(["sim"]) == _on_disk(objects, "sim")
        kept = {s.hour for s in repo.hours("sim", BTC.symbol, "tickers", HOURS[0], NOW)}
    assert store.generated_cache.evicted_count > 0
    assert HOURS[0] in kept  # recently used
    assert HOURS[-1] in kept  # just generated
    assert HOURS[1] not in kept  # generated early and never used again
    assert kept <= set(HOURS)
    for hour in HOURS:
        key = market_hour_key("sim", BTC, DataKind.TICKERS, hour)
        assert objects.exists(key) == (hour in kept)  # index and objects agree
    # An evicted hour is regenerated bit for bit on the next request.
    generated = store.generated_count
    again = store.read("sim", BTC, DataKind.TICKERS, HOURS[1])
    assert store.generated_count == generated + 1
    assert again is not None
    assert len(again) == sizes[1]
    assert store.read("sim", BTC, DataKind.TICKERS, HOURS[0]) == first


def test_eviction_goes_down_to_the_low_water_mark(tmp_path: Path) -> None:
    sizes = _sizes(tmp_path)
    budget = sum(sizes[:6])
    store, database, _ = _store(tmp_path / "capped", budget)
    for hour in HOURS:
        store.read("sim", BTC, DataKind.TICKERS, hour)
    with database.unit_of_work() as uow:
        total = MarketHourRepository(uow.session).total_bytes(["sim"])
    assert total <= budget
    # The last eviction left at most LOW_WATER of the budget plus what was generated since.
    assert total <= budget * LOW_WATER + max(sizes)


def test_ingested_hours_are_never_evicted(tmp_path: Path) -> None:
    sizes = _sizes(tmp_path)
    store, database, objects = _store(tmp_path / "capped", sum(sizes[:2]))
    frames = [
        SimExchange(coverage_start=NOW - timedelta(days=30)).generate(BTC, DataKind.TICKERS, h)
        for h in HOURS[:6]
    ]
    for frame in frames:  # an ingested exchange, larger than the whole generated budget
        store.write("binance", BTC, frame, None)
    for hour in HOURS:
        store.read("sim", BTC, DataKind.TICKERS, hour)
    assert store.generated_cache.evicted_count > 0
    with database.unit_of_work() as uow:
        ingested = MarketHourRepository(uow.session).hours(
            "binance", BTC.symbol, "tickers", HOURS[0], NOW
        )
    assert [s.hour for s in ingested] == HOURS[:6]
    assert _on_disk(objects, "binance") == sum(s.bytes for s in ingested)
    assert _on_disk(objects, "sim") <= sum(sizes[:2])
