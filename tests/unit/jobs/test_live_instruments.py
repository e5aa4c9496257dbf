"""A run's instruments: as sent, or resolved from ``*`` against the segment's listing."""

from __future__ import annotations

import pytest

from backtestd.domain.marketdata import Instrument
from backtestd.jobs.live.instruments import DefinitionRefused, resolve

UNIVERSE = [Instrument("BTC", "USDT"), Instrument("ETH", "USDT"), Instrument("ETH", "BTC")]


def test_named_instruments_are_kept_in_order_without_duplicates() -> None:
    assert resolve(["eth/usdt", "BTC/USDT", "ETH/USDT"], UNIVERSE) == [
        Instrument("ETH", "USDT"),
        Instrument("BTC", "USDT"),
    ]


def test_wildcards_resolve_against_the_segment() -> None:
    assert resolve(["*"], UNIVERSE) == UNIVERSE
    assert resolve(["*/USDT"], UNIVERSE) == UNIVERSE[:2]
    assert resolve(["ETH/*"], UNIVERSE) == UNIVERSE[1:]


@pytest.mark.parametrize("entry", ["BTCUSDT", "/USDT", "BTC/", "B.TC/USDT", "BT C/USDT", "B*/USDT"])
def test_badly_formed_entries_refuse_the_definition(entry: str) -> None:
    with pytest.raises(DefinitionRefused):
        resolve([entry], UNIVERSE)


def test_a_wildcard_matching_nothing_is_refused() -> None:
    with pytest.raises(DefinitionRefused):
        resolve(["*/EUR"], UNIVERSE)
