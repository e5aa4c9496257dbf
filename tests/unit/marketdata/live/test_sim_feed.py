"""The sim live feed publishes its own history, row for row, and only once a second is over."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from backtestd.domain.marketdata import (
    HOUR_MS,
    DataType,
    Instrument,
    Segment,
    hour_from_ms,
)
from backtestd.errors import InvalidInput
from backtestd.marketdata.live.clock import MarketClock
from backtestd.marketdata.live.feed import LiveEvent, LiveUpdate
from backtestd.marketdata.live.sim_feed import SimLiveFeed
from backtestd.marketdata.sim import SimExchange

# Mid-afternoon on a weekday: busy hours, so most seconds of BTC have a tick.
NOW = datetime(2026, 6, 2, 15, 0, 42, 300_000, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)
SIM = SimExchange(coverage_start=NOW - timedelta(days=3))
BTC, ETH, SOL = (Instrument.parse(s) for s in ("BTC/USDT", "ETH/USDT", "SOL/USDT"))


class ManualWall:
    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def _expected(
    instrument: Instrument, kind: DataType, from_ms: int, end_second: int
) -> list[tuple[int, tuple[bytes, ...]]]:
    """Independent reference from the generated history: every kline row, or the last ticker
    row of each second, of the seconds ``[ceil(from_ms / 1000), end_second)``, as raw bytes."""
    rows: list[tuple[int, tuple[bytes, ...]]] = []
    for hour_ms in range(from_ms // HOUR_MS * HOUR_MS, end_second * 1000, HOUR_MS):
        frame = SIM.generate(instrument, kind.kind, hour_from_ms(hour_ms))
        ts = frame.columns["ts"].tolist()
        last_of_second: dict[int, int] = {}
        for row, stamp in enumerate(ts):
            last_of_second[stamp // 1000] = row  # later rows of a second replace earlier ones
        for second, row in sorted(last_of_second.items()):
            if not (-(-from_ms // 1000) <= second < end_second):
                continue
            if kind is DataType.KLINE:
                values = [np.int64(ts[row] + 999).tobytes()] + [
                    frame.columns[c][row].tobytes() for c in ("open", "high", "low", "close")
                ]
                values.append(frame.columns["volume"][row].tobytes())
            else:
                names = ("bid", "bidSize", "ask", "askSize", "last", "volume")
                values = [frame.columns[c][row].tobytes() for c in names]
            rows.append((ts[row], tuple(values)))
    return rows


def _as_bytes(update: LiveUpdate) -> tuple[int, tuple[bytes, ...]]:
    values = [
        np.int64(v).tobytes() if isinstance(v, int) else np.float64(v).tobytes()
        for v in update.values
    ]
    return update.ts_ms, tuple(values)


def _drain(events: Iterator[LiveEvent], stop: threading.Event, out: list[LiveEvent]) -> None:
    for event in events:
        out.append(event)
    assert stop.is_set()


@pytest.mark.parametrize("kind", [DataType.KLINE, DataType.TICKER])
def test_warm_up_replays_history_rows_bit_for_bit_up_to_the_last_whole_second(
    kind: DataType,
) -> None:
    wall = ManualWall(NOW_MS / 1000)
    feed = SimLiveFeed(SIM, Segment.SPOT, MarketClock(anchor_ms=NOW_MS, wall=wall))
    from_ms = NOW_MS - 75 * 60_000 + 123  # 75 minutes back: crosses an hour start, unaligned
    stop = threading.Event()
    received: list[LiveEvent] = []
    thread = threading.Thread(
        target=_drain, args=(feed.stream([BTC, SOL], kind, from_ms, stop), stop, received)
    )
    wanted = {i: _expected(i, kind, from_ms, NOW_MS // 1000) for i in (BTC, SOL)}
    thread.start()
    # The clock does not move: only the replay can arrive. Wait for all of it (a loaded
    # machine generates the hours slowly), then a little more for anything that should not.
    deadline = time.monotonic() + 30
    while len(received) < sum(map(len, wanted.values())) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    stop.set()
    thread.join(5)
    assert not thread.is_alive()
    updates = [e for e in received if isinstance(e, LiveUpdate)]
    assert len(updates) == len(received)
    for instrument in (BTC, SOL):
        got = [_as_bytes(u) for u in updates if u.instrument == instrument]
        want = wanted[instrument]
        assert len(want) > 1000
        assert got == want
    assert all(u.ts_ms >= from_ms for u in updates)
    # The second in progress at NOW (15:00:42) is not published.
    assert max(u.ts_ms for u in updates) < NOW_MS // 1000 * 1000
    stamps = [(u.ts_ms, [BTC, SOL].index(u.instrument)) for u in updates]
    assert stamps == sorted(stamps)  # market-time order, ties in instrument order


def test_a_second_is_published_only_after_it_has_passed_on_the_market_clock() -> None:
    wall = ManualWall(NOW_MS / 1000)
    feed = SimLiveFeed(SIM, Segment.SPOT, MarketClock(anchor_ms=NOW_MS, wall=wall))
    stop = threading.Event()
    received: list[LiveEvent] = []
    from_ms = NOW_MS - 5_000
    events = feed.stream([BTC, ETH], DataType.TICKER, from_ms, stop)
    thread = threading.Thread(target=_drain, args=(events, stop, received))
    thread.start()
    try:
        for step in range(12):
            now_ms = NOW_MS + step * 700
            seconds_over = now_ms // 1000
            want = sorted(
                _expected(BTC, DataType.TICKER, from_ms, seconds_over)
                + _expected(ETH, DataType.TICKER, from_ms, seconds_over)
            )
            # Everything due arrives (however loaded the machine), nothing early ever does.
            deadline = time.monotonic() + 15
            while True:
                published = [e for e in received if isinstance(e, LiveUpdate)]
                assert all((u.second + 1) * 1000 <= now_ms for u in published)
                if sorted(_as_bytes(u) for u in published) == want:
                    break
                assert time.monotonic() < deadline, "a due second was not published"
                time.sleep(0.05)
            time.sleep(0.3)  # longer than the feed's longest wait slice: nothing more comes
            published = [e for e in received if isinstance(e, LiveUpdate)]
            assert sorted(_as_bytes(u) for u in published) == want
            wall.now += 0.7
    finally:
        stop.set()
        thread.join(5)
    assert len(received) > 10


def test_sped_up_clock_publishes_live_seconds_as_they_pass() -> None:
    clock = MarketClock(rate=40)  # 40 market seconds per wall second
    feed = SimLiveFeed(SIM, Segment.SPOT, clock)
    stop = threading.Event()
    started_ms = clock.now_ms()
    late = []
    live = []
    for event in feed.stream([BTC, ETH, SOL], DataType.KLINE, started_ms, stop):
        assert isinstance(event, LiveUpdate)
        now = clock.now_ms()
        assert (event.second + 1) * 1000 <= now
        late.append(now - (event.second + 1) * 1000)
        live.append(event)
        if now - started_ms > 60_000:
            stop.set()
    # Every second of the three histories up to the last one published came, none other: how
    # many that is depends on the market minute (sim 1 s klines exist for seconds with trades).
    end_second = max(u.second for u in live) + 1
    history = {
        ts // 1000
        for instrument in (BTC, ETH, SOL)
        for ts, _ in _expected(instrument, DataType.KLINE, started_ms, end_second)
    }
    assert {u.second for u in live} == history
    assert len(history) > 1
    # Each second is published about when it ends (well under 2 market seconds = 50 ms).
    assert np.median(late) < 2_000


def test_instruments_not_on_the_segment_are_refused_by_name() -> None:
    feed = SimLiveFeed(SIM, Segment.SPOT, MarketClock())
    with pytest.raises(InvalidInput, match="BTC/USDT:USDT, FOO/USDT not listed"):
        feed.stream(
            [BTC, Instrument.parse("BTC/USDT:USDT"), Instrument.parse("FOO/USDT")],
            DataType.TICKER,
            0,
            threading.Event(),
        )
    with pytest.raises(InvalidInput, match="no instruments"):
        feed.check_instruments([])
    with pytest.raises(InvalidInput, match="ticker or kline"):
        feed.stream([BTC], DataType.FUNDING, 0, threading.Event())
