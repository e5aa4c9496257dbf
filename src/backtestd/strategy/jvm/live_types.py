"""What goes into and comes out of a live session: market updates, typed signals, results.

A live session (:mod:`backtestd.strategy.jvm.live_session`) is fed the rows a run would read
from its column files, one update at a time, so an update carries exactly the run columns of
its kind (``RUN_COLUMNS``) in their order. Its signals come back in a run's answer format
(:class:`~backtestd.strategy.jvm.results.RunResult`) and are typed here for the live service:
a *hint* (a buy or a sell at a price) or an *info* signal (the fields the strategy set).
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from backtestd.domain.marketdata import RUN_COLUMNS, DataType, Instrument
from backtestd.strategy.jvm.results import RunResult


@dataclass(frozen=True, slots=True)
class TickerUpdate:
    """One ticker: the run columns of ``ticker`` data (NaN where the feed has no value)."""

    kind: ClassVar[DataType] = DataType.TICKER

    ts_ms: int
    bid: float
    bid_size: float
    ask: float
    ask_size: float
    last: float
    volume: float

    @property
    def event_ts_ms(self) -> int:
        """The market time a signal emitted on this update gets."""
        return self.ts_ms

    def row(self) -> list[int | float]:
        """The row as the host reads it: ``RUN_COLUMNS[ticker]`` in order."""
        return [
            int(self.ts_ms),
            float(self.bid),
            float(self.bid_size),
            float(self.ask),
            float(self.ask_size),
            float(self.last),
            float(self.volume),
        ]


@dataclass(frozen=True, slots=True)
class KlineUpdate:
    """One closed bar: the run columns of ``kline`` data. ``ts_ms`` is the bar's open time;
    its event time (what signals are stamped with) is ``close_ts_ms``."""

    kind: ClassVar[DataType] = DataType.KLINE

    ts_ms: int
    close_ts_ms: int
    open: float
    high: float
    low: float
    close: float
    volume: float

    @property
    def event_ts_ms(self) -> int:
        """The market time a signal emitted on this update gets: the bar's close time."""
        return self.close_ts_ms

    def row(self) -> list[int | float]:
        """The row as the host reads it: ``RUN_COLUMNS[kline]`` in order."""
        return [
            int(self.ts_ms),
            int(self.close_ts_ms),
            float(self.open),
            float(self.high),
            float(self.low),
            float(self.close),
            float(self.volume),
        ]


MarketUpdate = TickerUpdate | KlineUpdate
"""One row of a live feed."""

_UPDATE_TYPES: dict[DataType, type[TickerUpdate] | type[KlineUpdate]] = {
    DataType.TICKER: TickerUpdate,
    DataType.KLINE: KlineUpdate,
}


def updates_from_columns(
    kind: DataType | str,
    columns: Mapping[str, npt.ArrayLike],
    start: int = 0,
    end: int | None = None,
) -> list[MarketUpdate]:
    """The rows ``[start, end)`` of run columns (a prepare's arrays, ``RUN_COLUMNS[kind]``) as
    updates, in order: what a run over those rows reads, one update per row."""
    feed = DataType(kind)
    update = _UPDATE_TYPES.get(feed)
    if update is None:
        raise ValueError(f"a live session takes ticker or kline data, not {feed.value}")
    names = RUN_COLUMNS[feed]
    missing = [n for n in names if n not in columns]
    if missing:
        raise ValueError(f"{feed.value} updates need columns {list(names)}; missing {missing}")
    arrays = [np.asarray(columns[n])[start:end].tolist() for n in names]
    return [update(*values) for values in zip(*arrays, strict=True)]


class SignalType(enum.StrEnum):
    """What a strategy's signal is, in the live wire's words (``LiveSignal.type``)."""

    HINT = "hint"
    """A buy or a sell (``emitBuy``/``emitSell``, ``BuySignal``/``SellSignal``)."""
    INFO = "info"
    """An informational signal (``emitInfo``, ``InfoStrategySignal``): fields only."""


class Side(enum.StrEnum):
    """A hint's direction (``LiveSignal.kind``)."""

    BUY = "BUY"
    SELL = "SELL"


@dataclass(frozen=True)
class LiveSignal:
    """One signal a session produced.

    ``ts_ms`` is its market time (the event time of the update being processed, a bar's close
    time for klines; for a command, the session's market time). A hint has ``side`` and
    ``price``; an info signal has neither. ``data`` holds the fields set on the signal
    (``signal.set(key, value)``, ``emitInfo(key, value, ...)``) as JSON values, in the order
    set: empty for a plain buy or sell. Nested values (``set("_m", "shape", ...)``, the
    chart-marker convention) are nested objects. Treat ``data`` as read-only.

    The engine's signals carry no order kind, amount, stop price or trailing percentage: a hint
    is a side and a price, so a wire ``order`` built from it has only ``price``
    (:attr:`price_text` gives it as the wire's decimal string).
    """

    ts_ms: int
    type: SignalType
    side: Side | None
    price: float | None
    data: Mapping[str, Any]

    @property
    def price_text(self) -> str | None:
        """The price as a plain decimal string (no exponent), as the wire's order wants it."""
        return decimal_text(self.price) if self.price is not None else None


def decimal_text(value: float) -> str:
    """``value`` as a plain decimal string: the shortest text that reads back as the same
    double (Python's ``repr``), without an exponent (``1e-07`` -> ``0.0000001``)."""
    if not math.isfinite(value):
        raise ValueError(f"{value!r} has no decimal form")
    text = format(Decimal(repr(float(value))), "f")
    return text[:-2] if text.endswith(".0") else text


def signals_of(result: RunResult) -> tuple[LiveSignal, ...]:
    """The signals of a run-format answer, typed, in emission order."""
    out: list[LiveSignal] = []
    columns = zip(
        result.signal_ts.tolist(),
        result.signal_side.tolist(),
        result.signal_price.tolist(),
        result.info,
        strict=True,
    )
    for ts, side, price, data in columns:
        if side == 0:
            out.append(LiveSignal(int(ts), SignalType.INFO, None, None, data))
        else:
            side_of = Side.BUY if side > 0 else Side.SELL
            out.append(LiveSignal(int(ts), SignalType.HINT, side_of, float(price), data))
    return tuple(out)


@dataclass(frozen=True)
class LiveSessionInfo:
    """An open session: its handle for every later call, and what the strategy said at start."""

    session_id: str
    handles_commands: bool
    """Whether the strategy implements ``CommandRequestHandler`` (else commands are refused)."""
    kind: DataType
    instrument: Instrument
    main_class: str
    generation: int
    """The JVM start (``EngineHost.starts``) the session lives in; a later JVM does not hold it."""
    notices: tuple[str, ...] = ()
    execution_mode: str = ""
    percent_gain: float = math.nan
    multi_entry: bool = False


@dataclass(frozen=True)
class LiveFeedResult:
    """What one ``feed`` (or ``command``) produced."""

    signals: tuple[LiveSignal, ...]
    processed: int
    """Updates the strategy processed (all of them, unless it failed)."""
    market_ts_ms: int | None
    """The session's market time after the call (event time of its last update so far)."""
    notices: tuple[str, ...] = ()
    """Notices and log lines that appeared during the call (each distinct one once)."""
    cpu_ns: int = 0
    elapsed_ns: int = 0


def rows_of(kind: DataType, updates: Iterable[MarketUpdate]) -> list[list[int | float]]:
    """The request rows of ``updates``; every update must be of the session's ``kind``."""
    rows: list[list[int | float]] = []
    for update in updates:
        if update.kind is not kind:
            raise ValueError(f"a {kind.value} session cannot take a {update.kind.value} update")
        rows.append(update.row())
    return rows


def command_properties(properties: Mapping[str, Any] | None) -> dict[str, str | None]:
    """A command's properties as the strategy reads them (``CommandRequest.get``): strings as
    they are, booleans ``true``/``false``, numbers as JSON writes them, objects and lists as
    their JSON text, null as null."""
    out: dict[str, str | None] = {}
    for key, value in (properties or {}).items():
        if value is None or isinstance(value, str):
            out[str(key)] = value
        elif isinstance(value, bool):
            out[str(key)] = "true" if value else "false"
        elif isinstance(value, int | float):
            out[str(key)] = json.dumps(value)
        else:
            out[str(key)] = json.dumps(value, separators=(",", ":"), sort_keys=False)
    return out


def as_updates(updates: MarketUpdate | Sequence[MarketUpdate]) -> Sequence[MarketUpdate]:
    """One update or several, as a sequence."""
    if isinstance(updates, TickerUpdate | KlineUpdate):
        return (updates,)
    return updates
