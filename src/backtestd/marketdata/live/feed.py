"""What a live feed hands a live run: one update per instrument and market second, in order.

A live run consumes a feed as an iterator (:meth:`LiveFeed.stream`) from a market time in the
past (the warm-up replay, delivered at once) into the future (delivered as the market clock
passes each second). Besides updates a stream may carry :class:`LiveGap` events: a span during
which the feed could not see the market (a lost connection). A gap is reported, never papered
over with invented values, so the run (and its paper account) can say what it missed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from backtestd.domain.marketdata import RUN_COLUMNS, DataType, Instrument
from backtestd.marketdata.live.clock import MarketClock

LIVE_TYPES: tuple[DataType, ...] = (DataType.TICKER, DataType.KLINE)
"""The data a live run can be fed (the wire's source ``type``)."""


def value_columns(kind: DataType) -> tuple[str, ...]:
    """Names of :attr:`LiveUpdate.values` for ``kind``: ``RUN_COLUMNS`` without ``ts``.

    >>> value_columns(DataType.KLINE)
    ('closeTs', 'open', 'high', 'low', 'close', 'volume')
    """
    return RUN_COLUMNS[kind][1:]


@dataclass(frozen=True, slots=True)
class LiveUpdate:
    """One instrument's data for one market second.

    ``ts_ms`` is the update's market time (a ticker row's own time, a kline's open time);
    ``values`` follow :func:`value_columns` of ``kind`` — tickers ``(bid, bidSize, ask,
    askSize, last, volume)``, klines ``(closeTs, open, high, low, close, volume)`` with
    ``closeTs`` an ``int`` and every other value a ``float``.
    """

    instrument: Instrument
    kind: DataType
    ts_ms: int
    values: tuple[float, ...]

    @property
    def second(self) -> int:
        """The market second (epoch seconds) this update belongs to."""
        return self.ts_ms // 1000


@dataclass(frozen=True, slots=True)
class LiveGap:
    """A span ``[from_ms, to_ms)`` of market time the feed did not see, for ``instruments``.

    ``reason`` is a sentence for people (e.g. the connection error); no updates were invented
    for the span, and updates that straddle it may be missing.
    """

    instruments: tuple[Instrument, ...]
    from_ms: int
    to_ms: int
    reason: str


LiveEvent = LiveUpdate | LiveGap


class LiveFeed(Protocol):
    """A source of live market updates for one exchange segment."""

    exchange_id: str
    clock: MarketClock
    """The market clock this feed publishes by ("now" for runs on this feed)."""

    def check_instruments(self, instruments: Sequence[Instrument]) -> None:
        """Raise ``InvalidInput`` naming each instrument this feed cannot deliver."""

    def stream(
        self,
        instruments: Sequence[Instrument],
        kind: DataType,
        from_ms: int,
        stop: threading.Event,
    ) -> Iterator[LiveEvent]:
        """Updates of ``instruments`` with ``ts_ms >= from_ms`` in market-time order (ties in
        the order of ``instruments``), plus any gaps, until ``stop`` is set.

        Seconds the market clock has already passed are yielded at once (warm-up replay); then
        each second is yielded once it has passed on :attr:`clock`, never before.
        """
        ...
