"""The ``sim`` live feed: the simulated exchange's own history, published as its seconds pass.

The feed invents nothing of its own. It reads the very hour frames the download routes and
prepares serve (through the hourly store when the hour is complete, from the generator for the
hour still in progress — the same pure function of seed, instrument and hour, so both give the
same rows) and publishes one row per instrument and second:

* ``kline``: the 1-second bar of that second (sim klines are natively 1 s), ``closeTs`` =
  open time + 999 ms as in prepared data;
* ``ticker``: the last ticker row of that second, with its own millisecond timestamp.

A second without a tick has no row in the history and no update here. Every published value is
therefore a history row bit for bit, and a row is published only once its whole second has
passed on the market clock, so a live run never sees a value before a backtest could.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

from backtestd.domain.marketdata import (
    HOUR_MS,
    DataKind,
    DataType,
    HourFrame,
    Instrument,
    Segment,
    hour_from_ms,
)
from backtestd.errors import InvalidInput
from backtestd.marketdata.live.clock import MarketClock
from backtestd.marketdata.live.feed import LIVE_TYPES, LiveEvent, LiveUpdate
from backtestd.marketdata.live.history import SecondRows, in_market_order
from backtestd.marketdata.sources import GeneratingSource
from backtestd.marketdata.store import HourlyStore

HourReader = Callable[[Instrument, DataKind, datetime], HourFrame]
SECONDS_PER_HOUR = HOUR_MS // 1000


def sim_hours(source: GeneratingSource, store: HourlyStore | None) -> HourReader:
    """Hours as the service serves them: the store's copy of a complete hour (what a download
    or a prepare reads), else — the hour in progress, or one outside the advertised coverage —
    the generator's frame of it."""

    def read(instrument: Instrument, kind: DataKind, hour: datetime) -> HourFrame:
        if store is not None:
            frame = store.read_frame(source.exchange_id, instrument, kind, hour)
            if frame is not None:
                return frame
        return source.generate(instrument, kind, hour)

    return read


class SimLiveFeed:
    """Live feed of the ``sim`` exchange for one segment (see the module docstring)."""

    def __init__(
        self,
        source: GeneratingSource,
        segment: Segment,
        clock: MarketClock,
        hours: HourReader | None = None,
    ) -> None:
        self.exchange_id = source.exchange_id
        self.segment = segment
        self.clock = clock
        self._source = source
        self._hours = hours or sim_hours(source, None)

    def check_instruments(self, instruments: Sequence[Instrument]) -> None:
        listed = {i for i in self._source.instruments() if i.segment is self.segment}
        unknown = [i.symbol for i in instruments if i not in listed]
        if not instruments or unknown:
            names = ", ".join(sorted(i.symbol for i in listed))
            problem = f"{', '.join(unknown)} not listed" if unknown else "no instruments given"
            raise InvalidInput(
                f"the {self.exchange_id} {self.segment.value} live feed cannot deliver this: "
                f"{problem}; it lists {names}"
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
        return self._stream(tuple(instruments), kind, from_ms, stop)

    def _stream(
        self,
        instruments: tuple[Instrument, ...],
        kind: DataType,
        from_ms: int,
        stop: threading.Event,
    ) -> Iterator[LiveEvent]:
        cache: dict[tuple[Instrument, int], SecondRows] = {}
        second = -(-from_ms // 1000)  # the first whole second at or after from_ms
        while not stop.is_set():
            passed = self.clock.now_ms() // 1000  # every second before this one is over
            if passed <= second:
                if not self.clock.wait_until((second + 1) * 1000, stop):
                    return
                continue
            # At most up to the end of the current hour at a time: a long warm-up stays lazy.
            end = min(passed, (second // SECONDS_PER_HOUR + 1) * SECONDS_PER_HOUR)
            for update in self._window(instruments, kind, second, end, cache):
                yield update
                if stop.is_set():
                    return
            second = end

    def _window(
        self,
        instruments: tuple[Instrument, ...],
        kind: DataType,
        first: int,
        end: int,
        cache: dict[tuple[Instrument, int], SecondRows],
    ) -> list[LiveUpdate]:
        """Updates of seconds ``[first, end)`` (inside one hour), in market-time order."""
        hour = first // SECONDS_PER_HOUR
        for key in [k for k in cache if k[1] < hour]:
            del cache[key]  # hours already published are not needed again
        per_instrument = []
        for instrument in instruments:
            rows = cache.get((instrument, hour))
            if rows is None:
                frame = self._hours(instrument, kind.kind, hour_from_ms(hour * HOUR_MS))
                rows = cache[(instrument, hour)] = SecondRows.of(frame, kind)
            per_instrument.append(rows.updates(instrument, kind, first, end))
        return in_market_order(per_instrument)
