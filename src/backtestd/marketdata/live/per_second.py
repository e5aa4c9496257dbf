"""Turning an exchange's message stream into one update per instrument and second.

Pure state machines: the I/O shell (``binance_feed.py``) hands them messages with the market
time they were received at and asks, as the clock moves, for the updates that are due. The
rules, documented in docs/live-feeds.md:

* **Tickers** — messages are bucketed by the second they were *received* in (Binance's book
  ticker carries no timestamp, so receipt time is the only common clock of quotes and trades).
  A second with at least one message gives one update, stamped with the receipt time of its last
  message: the best bid/ask (and sizes) last seen, the price of the last trade seen, and the
  summed quantity of the second's trades (``0.0`` if none). Nothing is published for an
  instrument until both a quote and a trade have been seen since the connection opened.
* **Klines** — the exchange's own 1-second bars, keyed by their open time. A bar is final when
  the exchange says it is closed, when a later bar of the instrument arrives, or ``grace_ms``
  after its close time; the last message of a final bar is published. Final bars are released
  in open-time order across instruments; a message for a bar already released is dropped and
  counted as late.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.marketdata.live.binance_messages import Kline
from backtestd.marketdata.live.feed import LiveUpdate


@dataclass
class _TickerState:
    quote: tuple[float, float, float, float] | None = None
    last_price: float | None = None
    second: int | None = None  # the open bucket
    stamp_ms: int = 0
    volume: float = 0.0


class TickerSeconds:
    """Per-second ticker updates from book-ticker and trade messages (see the module)."""

    def __init__(self, instruments: Sequence[Instrument]) -> None:
        self._instruments = tuple(instruments)
        self._state = {i: _TickerState() for i in self._instruments}
        self._ready: list[tuple[int, int, LiveUpdate]] = []
        self.unpriced_seconds = 0  # seconds seen before a quote and a trade were both known

    def quote(
        self, instrument: Instrument, quote: tuple[float, float, float, float], at_ms: int
    ) -> None:
        state = self._enter(instrument, at_ms)
        state.quote = quote

    def trade(self, instrument: Instrument, price: float, quantity: float, at_ms: int) -> None:
        state = self._enter(instrument, at_ms)
        state.last_price = price
        state.volume += quantity

    def due(self, now_ms: int) -> list[LiveUpdate]:
        """Updates of every second that is over at ``now_ms``, in market-time order."""
        current = now_ms // 1000
        for instrument, state in self._state.items():
            if state.second is not None and state.second < current:
                self._close(instrument, state)
        return self._release()

    def interrupt(self) -> list[LiveUpdate]:
        """The connection is lost: release the open seconds (what was seen of them is real)
        and forget the book and the last price, which the gap may have changed."""
        for instrument, state in self._state.items():
            if state.second is not None:
                self._close(instrument, state)
        self._state = {i: _TickerState() for i in self._instruments}
        return self._release()

    def _enter(self, instrument: Instrument, at_ms: int) -> _TickerState:
        state = self._state[instrument]
        second = at_ms // 1000
        if state.second is not None and state.second != second:
            self._close(instrument, state)
        state.second, state.stamp_ms = second, at_ms
        return state

    def _close(self, instrument: Instrument, state: _TickerState) -> None:
        if state.quote is None or state.last_price is None:
            self.unpriced_seconds += 1
        else:
            values = (*state.quote, state.last_price, state.volume)
            update = LiveUpdate(instrument, DataType.TICKER, state.stamp_ms, values)
            self._ready.append((state.stamp_ms, self._instruments.index(instrument), update))
        state.second, state.volume = None, 0.0

    def _release(self) -> list[LiveUpdate]:
        ready = sorted(self._ready, key=lambda item: (item[0], item[1]))
        self._ready = []
        return [update for _, _, update in ready]


@dataclass
class _KlineState:
    pending: dict[int, Kline] = field(default_factory=dict)  # open ms -> latest message
    final: set[int] = field(default_factory=set)
    released_through: int = -1  # open ms of the newest bar released


class KlineSeconds:
    """Final 1-second bars, released in open-time order (see the module)."""

    def __init__(self, instruments: Sequence[Instrument], grace_ms: int = 2_000) -> None:
        self._instruments = tuple(instruments)
        self._grace_ms = grace_ms
        self._state = {i: _KlineState() for i in self._instruments}
        self.late_messages = 0

    def bar(self, instrument: Instrument, kline: Kline) -> None:
        state = self._state[instrument]
        if kline.open_ms <= state.released_through:
            self.late_messages += 1
            return
        state.pending[kline.open_ms] = kline
        if kline.closed:
            state.final.add(kline.open_ms)
        state.final.update(t for t in state.pending if t < kline.open_ms)

    def due(self, now_ms: int) -> list[LiveUpdate]:
        """Final bars every instrument is past, oldest first (ties in instrument order)."""
        for state in self._state.values():
            state.final.update(
                t for t, k in state.pending.items() if k.close_ms + self._grace_ms <= now_ms
            )
        # A bar not yet final holds back every bar at or after its open time.
        unsettled = [t for s in self._state.values() for t in s.pending if t not in s.final]
        horizon = min(unsettled, default=None)
        return self._release(horizon)

    def interrupt(self) -> list[LiveUpdate]:
        """The connection is lost: release final bars, drop bars that may be incomplete."""
        released = self._release(None)
        for state in self._state.values():
            state.pending.clear()
            state.final.clear()
        return released

    def _release(self, horizon: int | None) -> list[LiveUpdate]:
        ready: list[tuple[int, int, LiveUpdate]] = []
        for index, instrument in enumerate(self._instruments):
            state = self._state[instrument]
            for t in sorted(state.final):
                if horizon is not None and t >= horizon:
                    continue
                k = state.pending.pop(t)
                state.final.discard(t)
                state.released_through = max(state.released_through, t)
                values = (k.close_ms, k.open, k.high, k.low, k.close, k.volume)
                ready.append((t, index, LiveUpdate(instrument, DataType.KLINE, t, values)))
        ready.sort(key=lambda item: (item[0], item[1]))
        return [update for _, _, update in ready]
