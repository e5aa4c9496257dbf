"""The ``binance`` spot live feed: Binance's public market streams, one update a second.

One WebSocket connection per stream call, to the combined stream of the run's instruments
(``@bookTicker`` + ``@aggTrade`` for tickers, ``@kline_1s`` for klines; formats in
``binance_messages.py``), turned into one update per instrument and second by
``per_second.py``. Runs on real time whatever ``BACKTESTD_LIVE_CLOCK_RATE`` says: the exchange
does not speed up.

* **Reconnection.** A lost or refused connection is retried with exponential backoff
  (``backoff_s`` doubling up to ``max_backoff_s``, reset once a connection delivers data).
  Binance closes every connection after 24 h and announces restarts (``serverShutdown``);
  both are handled the same way.
* **Gaps.** The span between losing a connection and the next one opening is yielded as a
  :class:`LiveGap` (and counted in :attr:`BinanceSpotFeed.gaps`); nothing is invented for it.
  Seconds open at the disconnection are published with what was seen of them (tickers) or
  dropped if not final (klines).
* **Warm-up.** The exchange cannot replay the past, so ``from_ms`` before now replays the
  recorded hours of the store (and what this feed has recorded but not yet written); the span
  between the last recorded second and the connection, if a second or more, is a gap.
* **Recording.** With a recorder, every update delivered live is recorded (``recorder.py``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from backtestd.domain.marketdata import HOUR_MS, DataType, Instrument, hour_from_ms
from backtestd.errors import InvalidInput
from backtestd.marketdata.live.binance_messages import (
    AggTrade,
    BinanceMessageError,
    BookTicker,
    Kline,
    Message,
    ServerShutdown,
    binance_symbol,
    combined_stream_path,
    parse_message,
)
from backtestd.marketdata.live.clock import MarketClock
from backtestd.marketdata.live.feed import LIVE_TYPES, LiveEvent, LiveGap, LiveUpdate
from backtestd.marketdata.live.history import SecondRows, in_market_order
from backtestd.marketdata.live.per_second import KlineSeconds, TickerSeconds
from backtestd.marketdata.live.recorder import KLINE_INTERVAL, HourRecorder
from backtestd.marketdata.store import HourlyStore

log = logging.getLogger(__name__)

EXCHANGE_ID = "binance"
MAX_STREAMS = 1024  # per connection (Binance's limit)
RECV_SLICE_S = 0.2  # longest wait for a frame: stop requests and due seconds are seen this fast
Connect = Callable[[str], ClientConnection]


def _default_connect(url: str) -> ClientConnection:
    return connect(url, open_timeout=10, close_timeout=2, max_size=2**20)


class _Aggregator:
    """The per-second state machine of one data type behind one interface."""

    def __init__(self, instruments: Sequence[Instrument], kind: DataType, grace_ms: int) -> None:
        self.kind = kind
        self.tickers = TickerSeconds(instruments)
        self.klines = KlineSeconds(instruments, grace_ms)
        self._by_symbol = {binance_symbol(i).upper(): i for i in instruments}

    def take(self, message: Message, at_ms: int) -> None:
        instrument = self._by_symbol.get(getattr(message, "symbol", ""))
        if instrument is None:
            return
        if isinstance(message, BookTicker) and self.kind is DataType.TICKER:
            quote = (message.bid, message.bid_size, message.ask, message.ask_size)
            self.tickers.quote(instrument, quote, at_ms)
        elif isinstance(message, AggTrade) and self.kind is DataType.TICKER:
            self.tickers.trade(instrument, message.price, message.quantity, at_ms)
        elif isinstance(message, Kline) and self.kind is DataType.KLINE:
            self.klines.bar(instrument, message)

    def due(self, now_ms: int) -> list[LiveUpdate]:
        machine = self.tickers if self.kind is DataType.TICKER else self.klines
        return machine.due(now_ms)

    def interrupt(self) -> list[LiveUpdate]:
        machine = self.tickers if self.kind is DataType.TICKER else self.klines
        return machine.interrupt()


class BinanceSpotFeed:
    """Live feed of Binance spot (see the module docstring)."""

    exchange_id = EXCHANGE_ID

    def __init__(
        self,
        url: str,
        *,
        clock: MarketClock | None = None,
        store: HourlyStore | None = None,
        recorder: HourRecorder | None = None,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        kline_grace_ms: int = 2_000,
        connector: Connect = _default_connect,
    ) -> None:
        self.url = url.rstrip("/")
        self.clock = clock or MarketClock()
        self._store = store
        self._recorder = recorder
        self._backoff_s = backoff_s
        self._max_backoff_s = max_backoff_s
        self._kline_grace_ms = kline_grace_ms
        self._connect = connector
        self._flushed_hour = 0
        # Counters over the feed's life (every stream of it), for logs and the run's health.
        self.connections = 0
        self.reconnects = 0
        self.gaps = 0
        self.malformed_messages = 0
        self.late_messages = 0

    def check_instruments(self, instruments: Sequence[Instrument]) -> None:
        if not instruments:
            raise InvalidInput("the binance spot live feed needs at least one instrument")
        futures = [i.symbol for i in instruments if i.settle is not None]
        if futures:
            raise InvalidInput(
                f"the binance spot live feed delivers spot pairs only, not {', '.join(futures)}"
            )
        if len(instruments) * 2 > MAX_STREAMS:
            raise InvalidInput(
                f"the binance spot live feed takes at most {MAX_STREAMS // 2} instruments per run"
            )

    def stream(
        self,
        instruments: Sequence[Instrument],
        kind: DataType,
        from_ms: int,
        stop: threading.Event,
    ) -> Iterator[LiveEvent]:
        if kind not in LIVE_TYPES:
            raise InvalidInput(f"a live feed delivers ticker or kline data, not {kind.value}")
        self.check_instruments(instruments)
        return self._stream(tuple(dict.fromkeys(instruments)), kind, from_ms, stop)

    # -- the stream ----------------------------------------------------------------------

    def _stream(
        self,
        instruments: tuple[Instrument, ...],
        kind: DataType,
        from_ms: int,
        stop: threading.Event,
    ) -> Iterator[LiveEvent]:
        replayed = self.replay(instruments, kind, from_ms, self.clock.now_ms())
        yield from replayed
        # Live updates start after the replay (and never before from_ms).
        seen_to = max(from_ms, (replayed[-1].second + 1) * 1000 if replayed else from_ms)
        url = self.url + combined_stream_path(instruments, kind)
        aggregator = _Aggregator(instruments, kind, self._kline_grace_ms)
        down_since, reason = seen_to, "nothing recorded before the feed connected"
        backoff = self._backoff_s
        sessions = 0
        try:
            while not stop.is_set():
                try:
                    connection = self._connect(url)
                except (OSError, TimeoutError, WebSocketException) as exc:
                    reason = f"cannot connect to {self.url}: {exc}"
                    log.warning("binance live feed: %s; retrying in %.1f s", reason, backoff)
                else:
                    with connection:
                        opened = self.clock.now_ms()
                        self.connections += 1
                        # Before the stream's first connection only a whole second missing is
                        # a gap (connecting takes a moment); after a lost connection any is.
                        if opened - down_since >= (1 if sessions else 1000):
                            self.gaps += 1
                            yield LiveGap(instruments, down_since, opened, reason)
                        sessions += 1
                        session = self._session(connection, aggregator, seen_to, stop)
                        delivered, reason = yield from session
                    down_since = self.clock.now_ms()
                    if delivered:
                        backoff = self._backoff_s
                    if stop.is_set():
                        return
                    self.reconnects += 1
                    log.warning("binance live feed: %s; reconnecting in %.1f s", reason, backoff)
                stop.wait(backoff)
                backoff = min(backoff * 2, self._max_backoff_s)
        finally:
            if self._recorder is not None:
                self._recorder.flush()

    def _session(
        self,
        connection: ClientConnection,
        aggregator: _Aggregator,
        seen_to: int,
        stop: threading.Event,
    ) -> Generator[LiveEvent, None, tuple[bool, str]]:
        """Read one connection until it ends or ``stop``; returns (delivered anything, why it
        ended) as the generator's value."""
        delivered = False
        reason = "stopped"
        try:
            while not stop.is_set():
                try:
                    frame: Any = connection.recv(timeout=RECV_SLICE_S)
                except TimeoutError:
                    frame = None
                now = self.clock.now_ms()
                if frame is not None:
                    message = self._parse(frame)
                    if isinstance(message, ServerShutdown):
                        reason = "the server announced a shutdown"
                        break
                    if message is not None:
                        aggregator.take(message, now)
                for update in aggregator.due(now):
                    if update.ts_ms >= seen_to:
                        delivered = True
                        yield self._delivered(update, now)
        except (OSError, WebSocketException) as exc:
            reason = f"connection lost: {exc or type(exc).__name__}"
        for update in aggregator.interrupt():
            if update.ts_ms >= seen_to:
                yield self._delivered(update, None)
        self.late_messages = aggregator.klines.late_messages
        return delivered, reason

    def _parse(self, frame: str | bytes) -> Message | None:
        try:
            return parse_message(frame)
        except BinanceMessageError as exc:
            self.malformed_messages += 1
            log.warning("binance live feed: skipped a frame: %s", exc)
            return None

    def _delivered(self, update: LiveUpdate, now_ms: int | None) -> LiveUpdate:
        if self._recorder is not None:
            self._recorder.add(update)
            if now_ms is not None and now_ms // HOUR_MS > self._flushed_hour:
                self._flushed_hour = now_ms // HOUR_MS
                self._recorder.flush(now_ms)  # a new hour: write the hours that ended
        return update

    # -- warm-up -------------------------------------------------------------------------

    def replay(
        self, instruments: Sequence[Instrument], kind: DataType, from_ms: int, to_ms: int
    ) -> list[LiveUpdate]:
        """Recorded updates with ``from_ms <= ts < to_ms``: stored hours (tickers, and klines
        stored at 1 s) and what the recorder holds, in market-time order."""
        if from_ms >= to_ms:
            return []
        first, end = -(-from_ms // 1000), -(-to_ms // 1000)
        per_instrument = []
        for instrument in instruments:
            found: dict[int, LiveUpdate] = {}
            for hour_ms in range(from_ms // HOUR_MS * HOUR_MS, to_ms, HOUR_MS):
                for update in self._stored(instrument, kind, hour_ms, first, end):
                    found.setdefault(update.second, update)
            if self._recorder is not None:
                for update in self._recorder.buffered(instrument, kind, first * 1000, to_ms):
                    found.setdefault(update.second, update)
            per_instrument.append([found[s] for s in sorted(found) if s < end])
        return in_market_order(per_instrument)

    def _stored(
        self, instrument: Instrument, kind: DataType, hour_ms: int, first: int, end: int
    ) -> list[LiveUpdate]:
        if self._store is None:
            return []
        hour = hour_from_ms(hour_ms)
        stats = self._store.stats(EXCHANGE_ID, instrument, kind.kind, hour)
        if stats is None or stats.interval != (KLINE_INTERVAL if kind is DataType.KLINE else None):
            return []
        frame = self._store.read_frame(EXCHANGE_ID, instrument, kind.kind, hour)
        if frame is None:
            return []
        return SecondRows.of(frame, kind).updates(instrument, kind, first, end)
