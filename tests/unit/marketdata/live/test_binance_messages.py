"""Binance's documented stream payloads are read into typed messages."""

from __future__ import annotations

import json

import pytest

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.marketdata.live.binance_messages import (
    AggTrade,
    BinanceMessageError,
    BookTicker,
    Kline,
    ServerShutdown,
    combined_stream_path,
    parse_message,
)

# The payload examples of Binance's "WebSocket Streams" documentation, combined-stream wrapped.
BOOK = {"u": 400900217, "s": "BNBUSDT", "b": "25.35190000", "B": "31.21000000",
        "a": "25.36520000", "A": "40.66000000"}  # fmt: skip
AGG = {"e": "aggTrade", "E": 1672515782136, "s": "BNBBTC", "a": 12345, "p": "0.001",
       "q": "100", "f": 100, "l": 105, "T": 1672515782136, "m": True, "M": True}  # fmt: skip
KLINE = {"e": "kline", "E": 1672515782136, "s": "BNBBTC", "k": {
    "t": 1672515780000, "T": 1672515780999, "s": "BNBBTC", "i": "1s", "f": 100, "L": 200,
    "o": "0.0010", "c": "0.0020", "h": "0.0025", "l": "0.0015", "v": "1000", "n": 100,
    "x": False, "q": "1.0000", "V": "500", "Q": "0.500", "B": "123456"}}  # fmt: skip


def _wrapped(stream: str, data: object) -> str:
    return json.dumps({"stream": stream, "data": data})


def test_documented_payloads_are_parsed() -> None:
    assert parse_message(_wrapped("bnbusdt@bookTicker", BOOK)) == BookTicker(
        "BNBUSDT", 25.3519, 31.21, 25.3652, 40.66
    )
    assert parse_message(_wrapped("bnbbtc@aggTrade", AGG)) == AggTrade(
        "BNBBTC", 0.001, 100.0, 1672515782136
    )
    assert parse_message(_wrapped("bnbbtc@kline_1s", KLINE)) == Kline(
        "BNBBTC", 1672515780000, 1672515780999, 0.001, 0.0025, 0.0015, 0.002, 1000.0, False
    )
    assert parse_message(json.dumps(BOOK)) == BookTicker(
        "BNBUSDT", 25.3519, 31.21, 25.3652, 40.66
    )  # a raw (unwrapped) book ticker is recognised by its fields


def test_replies_and_other_events_are_ignored_and_shutdown_is_recognised() -> None:
    assert parse_message('{"result": null, "id": 1}') is None
    assert parse_message(_wrapped("bnbbtc@trade", {"e": "trade", "s": "BNBBTC"})) is None
    assert parse_message('{"e": "serverShutdown", "E": 1}') == ServerShutdown()


@pytest.mark.parametrize(
    "frame",
    [
        "not json",
        "[1, 2]",
        _wrapped("bnbusdt@bookTicker", {"u": 1, "s": "BNBUSDT", "b": "x", "B": "1", "a": "1"}),
        _wrapped("bnbbtc@aggTrade", {**AGG, "p": None}),
        _wrapped("bnbbtc@kline_1m", {**KLINE, "k": {**KLINE["k"], "i": "1m"}}),  # type: ignore[dict-item]
        _wrapped("x", "text"),
    ],
)
def test_malformed_frames_are_errors(frame: str) -> None:
    with pytest.raises(BinanceMessageError):
        parse_message(frame)


def test_stream_path_subscribes_book_and_trades_for_tickers_and_1s_klines() -> None:
    pairs = [Instrument.parse("BTC/USDT"), Instrument.parse("eth/btc")]
    assert combined_stream_path(pairs, DataType.TICKER) == (
        "/stream?streams=btcusdt@bookTicker/btcusdt@aggTrade/ethbtc@bookTicker/ethbtc@aggTrade"
    )
    assert combined_stream_path(pairs, DataType.KLINE) == (
        "/stream?streams=btcusdt@kline_1s/ethbtc@kline_1s"
    )
