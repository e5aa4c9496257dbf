"""The hour index under concurrent writers (two workers generating the same ``sim`` hour)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from backtestd.domain.catalogue import HourStats
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.market import MarketHourRepository

HOUR = datetime(2026, 6, 1, 3, tzinfo=UTC)
WRITERS = 8


def _stats(rows: int) -> HourStats:
    return HourStats(
        exchange_id="sim",
        symbol="BTC/USDT",
        kind="tickers",
        hour=HOUR,
        rows=rows,
        bytes=rows * 10,
        last_price=100.0,
        quote_volume=5.0,
        interval=None,
    )


def test_writers_recording_the_same_hour_at_once_all_succeed(database: Database) -> None:
    """Two prepares on two workers may generate and record the same hour at the same moment;
    recording must not fail either of them (it used to be delete-then-insert, and on
    PostgreSQL the second insert hit the primary key and failed the whole prepare)."""
    barrier = threading.Barrier(WRITERS)
    errors: list[BaseException] = []

    def record(rows: int) -> None:
        try:
            barrier.wait()
            with database.unit_of_work() as uow:
                MarketHourRepository(uow.session).put(_stats(rows), HOUR + timedelta(hours=2))
        except BaseException as error:  # noqa: BLE001 - the test reports every failure
            errors.append(error)

    threads = [threading.Thread(target=record, args=(100 + i,)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with database.unit_of_work() as uow:
        stored = MarketHourRepository(uow.session).hours(
            "sim", "BTC/USDT", "tickers", HOUR, HOUR + timedelta(hours=1)
        )
    assert len(stored) == 1
    assert stored[0].rows in range(100, 100 + WRITERS)
    assert stored[0].bytes == stored[0].rows * 10


def test_recording_an_hour_again_replaces_its_figures(database: Database) -> None:
    with database.unit_of_work() as uow:
        MarketHourRepository(uow.session).put(_stats(100), HOUR)
    with database.unit_of_work() as uow:
        MarketHourRepository(uow.session).put(_stats(250), HOUR + timedelta(hours=1))
    with database.unit_of_work() as uow:
        (stored,) = MarketHourRepository(uow.session).hours(
            "sim", "BTC/USDT", "tickers", HOUR, HOUR + timedelta(hours=1)
        )
    assert (stored.rows, stored.bytes) == (250, 2500)
