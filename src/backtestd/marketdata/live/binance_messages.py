"""The Binance spot public market streams this feed reads, as documented by Binance.

Combined streams (``/stream?streams=<a>/<b>``) wrap every payload as
``{"stream": "<name>", "data": <payload>}``. Three payloads are used:

* ``<symbol>@bookTicker`` — ``{"u", "s", "b", "B", "a", "A"}``: best bid/ask price and size,
  pushed on every change (it carries no timestamp);
* ``<symbol>@aggTrade`` — ``{"e": "aggTrade", "E", "s", "a", "p", "q", "f", "l", "T", "m",
  "M"}``: one taker order's trades (price ``p``, quantity ``q``, trade time ``T``);
* ``<symbol>@kline_1s`` — ``{"e": "kline", "E", "s", "k": {"t", "T", "s", "i", "o", "c", "h",
  "l", "v", "n", "x", ...}}``: the current 1-second bar, ``x`` true once it is closed.

Prices and quantities arrive as decimal strings and are read with ``float`` (correctly rounded).
Subscription replies (``{"result": null, "id": 1}``) are ignored; ``serverShutdown`` events
announce a disconnection.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backtestd.domain.marketdata import DataType, Instrument

BOOK_TICKER, AGG_TRADE, KLINE_1S = "bookTicker", "aggTrade", "kline_1s"
STREAMS_BY_TYPE: dict[DataType, tuple[str, ...]] = {
    DataType.TICKER: (BOOK_TICKER, AGG_TRADE),
    DataType.KLINE: (KLINE_1S,),
}


class BinanceMessageError(ValueError):
    """A frame that is not one of the documented payloads (counted and skipped by the feed)."""


@dataclass(frozen=True, slots=True)
class BookTicker:
    symbol: str
    bid: float
    bid_size: float
    ask: float
    ask_size: float


@dataclass(frozen=True, slots=True)
class AggTrade:
    symbol: str
    price: float
    quantity: float
    trade_ms: int


@dataclass(frozen=True, slots=True)
class Kline:
    symbol: str
    open_ms: int
    close_ms: int
    open: float
    high: float
    low: float
    close: float
    volume: float
    closed: bool


@dataclass(frozen=True, slots=True)
class ServerShutdown:
    """The server is about to close the connection (reconnect at once)."""


Message = BookTicker | AggTrade | Kline | ServerShutdown


def binance_symbol(instrument: Instrument) -> str:
    """The stream symbol of a spot pair: ``BTC/USDT`` -> ``btcusdt``."""
    return f"{instrument.base}{instrument.quote}".lower()


def combined_stream_path(instruments: Sequence[Instrument], kind: DataType) -> str:
    """``/stream?streams=btcusdt@bookTicker/btcusdt@aggTrade/...`` for ``instruments``.

    >>> combined_stream_path([Instrument("BTC", "USDT")], DataType.KLINE)
    '/stream?streams=btcusdt@kline_1s'
    """
    names = [f"{binance_symbol(i)}@{s}" for i in instruments for s in STREAMS_BY_TYPE[kind]]
    return "/stream?streams=" + "/".join(names)


def parse_message(frame: str | bytes) -> Message | None:
    """The payload of one frame; ``None`` for a reply or an event this feed does not use.

    >>> parse_message('{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade","E":2,"s":"BTCUSDT",'
    ...               '"a":1,"p":"100.5","q":"0.25","f":1,"l":1,"T":1,"m":true,"M":true}}')
    AggTrade(symbol='BTCUSDT', price=100.5, quantity=0.25, trade_ms=1)
    """
    try:
        message = json.loads(frame)
    except ValueError as exc:
        raise BinanceMessageError(f"not JSON: {exc}") from exc
    if not isinstance(message, dict):
        raise BinanceMessageError("not a JSON object")
    stream = message.get("stream")
    data = message.get("data", message)
    if not isinstance(data, dict):
        raise BinanceMessageError("'data' is not a JSON object")
    try:
        return _payload(str(stream or ""), data)
    except (KeyError, TypeError, ValueError) as exc:
        raise BinanceMessageError(f"malformed {stream or 'payload'}: {exc!r}") from exc


def _payload(stream: str, data: dict[str, Any]) -> Message | None:
    event = data.get("e")
    if event == "serverShutdown":
        return ServerShutdown()
    if stream.endswith("@" + BOOK_TICKER) or (event is None and {"u", "b", "a"} <= data.keys()):
        return BookTicker(
            str(data["s"]), float(data["b"]), float(data["B"]), float(data["a"]), float(data["A"])
        )
    if event == "aggTrade":
        return AggTrade(str(data["s"]), float(data["p"]), float(data["q"]), int(data["T"]))
    if event == "kline":
        k = data["k"]
        if k["i"] != "1s":
            raise ValueError(f"interval {k['i']!r}, not 1s")
        return Kline(
            str(data["s"]),
            int(k["t"]),
            int(k["T"]),
            float(k["o"]),
            float(k["h"]),
            float(k["l"]),
            float(k["c"]),
            float(k["v"]),
            bool(k["x"]),
        )
    return None
