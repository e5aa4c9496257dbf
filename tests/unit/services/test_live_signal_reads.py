"""Parsing of a signal read's query: instruments, types, cursors, limits (§3.10)."""

from __future__ import annotations

import pytest

from backtestd.domain.live import SignalType
from backtestd.errors import InvalidInput
from backtestd.services.live.signal_reads import (
    decode_cursor,
    encode_cursor,
    parse_instruments,
    parse_types,
    signal_query,
)


def test_instrument_filters() -> None:
    assert parse_instruments(None) is None
    assert parse_instruments("*") is None
    assert parse_instruments("BTC/USDT, */EUR,ETH/*") == ("BTC/USDT", "*/EUR", "ETH/*")
    for bad in ("BTCUSDT", "*/*", "BTC/US%", "BTC_X/USDT"):
        with pytest.raises(InvalidInput, match="BASE/QUOTE"):
            parse_instruments(bad)


def test_type_filters_name_the_valid_types() -> None:
    assert parse_types("hint,command") == (SignalType.HINT, SignalType.COMMAND)
    with pytest.raises(InvalidInput, match="hint, info, marker, command, paper"):
        parse_types("hint,trade")


def test_cursors_round_trip_and_garbage_is_a_400() -> None:
    assert decode_cursor(encode_cursor(123)) == 123
    for bad in ("nope", encode_cursor(1)[:-3] + "!!", "eyJzZXEiOiAtMX0"):
        with pytest.raises(InvalidInput, match="cursor"):
            decode_cursor(bad)


def test_limit_defaults_to_20_and_is_capped_at_100() -> None:
    assert signal_query(None, None, None, None, None).limit == 20
    assert signal_query(None, None, None, None, 500).limit == 100
    with pytest.raises(InvalidInput):
        signal_query(None, None, None, None, 0)
