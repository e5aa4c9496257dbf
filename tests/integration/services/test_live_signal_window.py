"""The signal record's moving window on both databases: trimmed from the oldest end, and a
cursor whose position was discarded is a 410 whose message carries ``availableSinceMs=<ms>``
(the SDK extracts it with ``availableSinceMs\\D+(\\d+)``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from backtestd.domain.accounts import Principal
from backtestd.domain.live import LiveSignal, LiveSource, LiveStart, SignalType, Visibility
from backtestd.domain.marketdata import DataType
from backtestd.domain.strategies import StrategyRecord
from backtestd.marketdata.live import LiveFeeds
from backtestd.services.live.runs import LiveRunService, wall_ms
from backtestd.services.live.signal_reads import (
    CursorExpired,
    LiveSignalReads,
    encode_cursor,
    signal_query,
)
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import LiveSignalRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository
from tests.support.strategies import source

OWNER = Principal("owner", "elite")


def _signal(run_id: str, seq: int) -> LiveSignal:
    body = {"v": 1, "signal_id": f"{run_id}-{seq:06d}", "event_ts_ms": 1_000 * seq}
    return LiveSignal(run_id, seq, 1_000 * seq, SignalType.INFO, "BTC/USDT", "sandbox", body)


def test_an_expired_cursor_is_410_with_available_since(database: Database, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    feeds = LiveFeeds(settings)
    runs = LiveRunService(settings, database, feeds, feeds.clock.now_ms, wall_ms)
    with database.unit_of_work() as uow:
        StrategyRepository(uow.session).add(
            StrategyRecord(
                strategy_id="s" * 22,
                user_id=OWNER.user_id,
                language="java",
                content_digest="d",
                generation=1,
                source=source("live_every_bar.java"),
                main_class="EveryBar",
                class_files={},
                declared_properties=(),
                required_sources=("KLine",),
                compiled_at=datetime.now(UTC),
            )
        )
    start = LiveStart(
        source=LiveSource("cex", "sim", "spot", DataType.KLINE, ("BTC/USDT",)),
        source_given_instruments=True,
        params={},
        visibility=Visibility.PRIVATE,
        relay=False,
        sandbox=False,
        stream=False,
        warm_from=0,
        sandbox_minutes=5,
        name=None,
        description=None,
        paper=None,
    )
    run_id = runs.start(OWNER, "s" * 22, start).record.run_id
    with database.unit_of_work() as uow:
        LiveSignalRepository(uow.session).append([_signal(run_id, n) for n in range(1, 101)])
    with database.unit_of_work() as uow:
        signals = LiveSignalRepository(uow.session)
        signals.trim(run_id, keep=40, oldest_ms=0)
        assert signals.oldest(run_id) == (61, 61_000)
    reads = LiveSignalReads(database, runs)
    page = reads.page(OWNER.user_id, run_id, signal_query(None, None, None, None, 5))
    assert page.available_since_ms == 61_000
    assert [s.seq for s in page.signals] == [61, 62, 63, 64, 65]
    kept = reads.page(OWNER.user_id, run_id, signal_query(None, None, None, encode_cursor(60), 2))
    assert [s.seq for s in kept.signals] == [61, 62]
    with pytest.raises(CursorExpired) as expired:
        reads.page(OWNER.user_id, run_id, signal_query(None, None, None, encode_cursor(10), 2))
    found = re.search(r"availableSinceMs\D+(\d+)", expired.value.message)
    assert found is not None
    assert found.group(1) == "61000"
