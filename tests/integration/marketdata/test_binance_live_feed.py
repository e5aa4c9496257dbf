"""The binance live feed against a local server replaying recorded Binance stream frames.

The recordings (``data/*.jsonl``) are combined-stream frames in Binance's documented formats,
with one disconnection each: the server closes the connection and refuses new ones for a moment,
so the feed must reconnect (with backoff) and report the span it missed as a gap.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tests.support.binance_replay import BinanceReplayServer, load_recording

from backtestd.domain.marketdata import HOUR_MS, DataType, Instrument, hour_from_ms
from backtestd.errors import InvalidInput
from backtestd.marketdata.live.binance_feed import BinanceSpotFeed
from backtestd.marketdata.live.clock import MarketClock
from backtestd.marketdata.live.feed import LiveEvent, LiveGap, LiveUpdate
from backtestd.marketdata.live.recorder import HourRecorder
from backtestd.marketdata.store import HourlyStore
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.objects.store import LocalObjectStore

DATA = Path(__file__).parent / "data"
RECORDED_AT_MS = 1767225600000  # when the recordings start (2026-01-01T00:00:00Z)
BTC, ETH = Instrument.parse("BTC/USDT"), Instrument.parse("ETH/USDT")


def _store(tmp_path: Path) -> HourlyStore:
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(database)
    return HourlyStore(LocalObjectStore(tmp_path / "objects"), database, {})


def _run(
    feed: BinanceSpotFeed, kind: DataType, start_ms: int, expected_updates: int, linger_ms: int
) -> list[LiveEvent]:
    """Stream from ``start_ms`` until ``expected_updates`` arrived and ``linger_ms`` more
    passed (or 20 s: a hung feed fails the test instead of hanging it)."""
    stop = threading.Event()
    deadline = threading.Timer(20, stop.set)
    deadline.start()
    events: list[LiveEvent] = []
    done_at: float | None = None
    try:
        for event in feed.stream([BTC, ETH], kind, start_ms, stop):
            events.append(event)
            if (
                done_at is None
                and sum(isinstance(e, LiveUpdate) for e in events) >= expected_updates
            ):
                done_at = time.time() + linger_ms / 1000
                threading.Timer(linger_ms / 1000, stop.set).start()
    finally:
        deadline.cancel()
    assert done_at is not None, f"only {len(events)} events before the deadline: {events}"
    return events


def _updates(events: list[LiveEvent]) -> list[LiveUpdate]:
    return [e for e in events if isinstance(e, LiveUpdate)]


def test_tickers_one_update_a_second_reconnect_report_the_gap_and_are_recorded(
    tmp_path: Path,
) -> None:
    start_ms = (int(time.time()) + 1) * 1000  # the replay starts on a whole second
    recording = load_recording(DATA / "binance_tickers.jsonl")
    store = _store(tmp_path)
    with BinanceReplayServer(recording, RECORDED_AT_MS, start_ms) as server:
        feed = BinanceSpotFeed(
            server.url,
            clock=MarketClock(),
            store=store,
            recorder=HourRecorder(store, "binance"),
            backoff_s=0.1,
            max_backoff_s=0.3,
        )
        events = _run(feed, DataType.TICKER, start_ms, expected_updates=8, linger_ms=300)

    # (instrument, ms after the start the frame was sent, values) — bid, bidSize, ask,
    # askSize, last (the last trade so far), volume (the trades of that second).
    expected = [
        (ETH, 300, (2950.11, 10.0, 2950.12, 8.0, 2950.11, 1.5)),
        (BTC, 500, (87000.0, 0.75, 87000.1, 2.0, 87000.0, 0.01 + 0.02)),
        (BTC, 1100, (87001.0, 0.3, 87001.1, 0.4, 87000.0, 0.0)),
        (ETH, 1300, (2951.0, 5.0, 2951.01, 6.0, 2950.11, 0.0)),
        (BTC, 2300, (87001.0, 0.3, 87001.1, 0.4, 87001.1, 0.1 + 0.05)),
        # the gap; after it BTC's book is unknown until its quote at 5100, so no update at 4100
        (ETH, 4300, (2949.0, 1.0, 2949.5, 2.0, 2949.5, 2.0)),
        (BTC, 5400, (86989.9, 1.0, 86990.0, 1.0, 86990.0, 0.5)),
        (ETH, 5500, (2949.0, 1.0, 2949.5, 2.0, 2949.0, 1.0)),
    ]
    updates = _updates(events)
    # One update per instrument and second. Within a second they are ordered by receipt time,
    # ties by the instruments' order: a loaded machine that reads ETH's 300 ms frame and BTC's
    # 500 ms frame in one burst stamps both alike and puts BTC first, so the order is checked
    # by that rule, not against the send times.
    by_key = {(i, (start_ms + sent_ms) // 1000): (sent_ms, v) for i, sent_ms, v in expected}
    assert sorted((str(u.instrument), u.second) for u in updates) == sorted(
        (str(i), second) for i, second in by_key
    )
    for update in updates:
        sent_ms, values = by_key[(update.instrument, update.second)]
        assert update.values == values, update
        # stamped with the receipt time of the second's last message: that second, just after
        assert -5 <= update.ts_ms - (start_ms + sent_ms) < 400
    order = [(u.ts_ms, (BTC, ETH).index(u.instrument)) for u in updates]
    assert order == sorted(order)

    gaps = [e for e in events if isinstance(e, LiveGap)]
    assert len(gaps) == 1
    (gap,) = gaps
    assert events.index(gap) == 5  # between the last update before and the first after
    assert gap.instruments == (BTC, ETH)
    # The server closed at 2600; the feed's own clock may read it a few ms apart (1 ms early
    # was seen under load).
    assert start_ms + 2100 <= gap.from_ms < start_ms + 2800
    assert start_ms + 3500 <= gap.to_ms < start_ms + 4100  # it refused connections until 3500
    assert (feed.reconnects, feed.connections, feed.gaps) == (1, 2, 1)
    assert server.refused >= 1  # the first retry was refused: backoff, then retried
    assert feed.malformed_messages == 1
    assert (
        server.paths
        == [
            "/stream?streams=btcusdt@bookTicker/btcusdt@aggTrade/ethusdt@bookTicker/ethusdt@aggTrade"
        ]
        * 2
    )

    # Recorded into the store as the hour's rows, and replayed from there as a warm-up.
    for instrument in (BTC, ETH):
        mine = [u for u in updates if u.instrument == instrument]
        rows = []
        for hour_ms in sorted({u.ts_ms // HOUR_MS * HOUR_MS for u in mine}):
            frame = store.read_frame(
                "binance", instrument, DataType.TICKER.kind, hour_from_ms(hour_ms)
            )
            assert frame is not None
            columns = [frame.columns[c].tolist() for c in frame.columns]
            rows += list(zip(*columns, strict=True))
        assert rows == [(u.ts_ms, *u.values) for u in mine]
    replayed = feed.replay([BTC, ETH], DataType.TICKER, start_ms, start_ms + 10_000)
    assert replayed == updates


def test_klines_publish_final_1s_bars_in_order_and_drop_what_the_gap_cut(
    tmp_path: Path,
) -> None:
    start_ms = (int(time.time()) + 1) * 1000
    recording = load_recording(DATA / "binance_klines_1s.jsonl")
    with BinanceReplayServer(recording, RECORDED_AT_MS, start_ms) as server:
        feed = BinanceSpotFeed(server.url, clock=MarketClock(), backoff_s=0.1, max_backoff_s=0.3)
        events = _run(feed, DataType.KLINE, start_ms, expected_updates=6, linger_ms=500)

    s = start_ms
    expected = [
        (BTC, s, (s + 999, 87000.0, 87000.6, 86999.9, 87000.6, 0.45)),
        (ETH, s, (s + 999, 2950.0, 2950.1, 2949.8, 2949.8, 3.5)),
        (BTC, s + 1000, (s + 1999, 87000.6, 87001.2, 87000.6, 87001.2, 0.12)),
        # ETH's bar of +1 s never said it closed: its bar of +2 s made it final
        (ETH, s + 1000, (s + 1999, 2949.8, 2949.9, 2949.7, 2949.7, 1.2)),
        # the bars of +2 s were open when the connection dropped: not published
        (BTC, s + 4000, (s + 4999, 86995.0, 86995.0, 86989.0, 86989.5, 0.35)),
        (ETH, s + 4000, (s + 4999, 2948.0, 2948.5, 2948.0, 2948.4, 2.5)),
    ]
    assert [(u.instrument, u.ts_ms, u.values) for u in _updates(events)] == expected
    gaps = [e for e in events if isinstance(e, LiveGap)]
    assert len(gaps) == 1
    assert events.index(gaps[0]) == 4
    # The replay server drops the connection about 3 s in; the feed notices it then, give or
    # take the scheduler (it was seen 1 ms early on a loaded machine).
    assert s + 2500 <= gaps[0].from_ms < gaps[0].to_ms < s + 4900
    assert (feed.reconnects, feed.connections) == (1, 2)
    assert feed.late_messages == 1  # the repeat of BTC's bar of +1 s after the gap
    assert server.paths == ["/stream?streams=btcusdt@kline_1s/ethusdt@kline_1s"] * 2


def test_an_unreachable_exchange_is_retried_until_stopped_and_nothing_is_invented() -> None:
    feed = BinanceSpotFeed("ws://127.0.0.1:9", clock=MarketClock(), backoff_s=0.05)
    stop = threading.Event()
    threading.Timer(0.6, stop.set).start()
    from_ms = MarketClock().now_ms() - 5_000  # a warm-up with nothing recorded
    events = list(feed.stream([BTC], DataType.TICKER, from_ms, stop))
    assert events == []  # no connection ever opened: nothing delivered, nothing invented
    assert feed.connections == 0


def test_perpetuals_are_refused_by_the_spot_feed() -> None:
    feed = BinanceSpotFeed("ws://127.0.0.1:9")
    with pytest.raises(InvalidInput, match="spot pairs only"):
        feed.check_instruments([Instrument.parse("BTC/USDT:USDT")])
