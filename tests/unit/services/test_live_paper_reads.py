"""Parsing of a paper equity read's query (§3.12, §6.4): defaults, paging, refusals."""

from __future__ import annotations

from typing import Any

import pytest

from backtestd.domain.equity import OutMode
from backtestd.errors import InvalidInput
from backtestd.services.live.paper_reads import curve_query
from backtestd.services.live.signal_reads import encode_cursor


def _query(**given: Any) -> Any:
    names = (
        "currency",
        "instrument",
        "measure",
        "since_ms",
        "out_mode",
        "resample",
        "differential",
        "limit",
        "cursor",
    )
    return curve_query(*(given.get(n) for n in names))


def test_an_unpaged_read_by_default_and_a_paged_one_with_limit_or_cursor() -> None:
    whole = _query()
    assert (whole.paged, whole.out_mode, whole.differential) == (False, OutMode.ARRAY, False)
    assert _query(limit=5000).limit == 1000
    following = _query(cursor=encode_cursor(41))
    assert (following.paged, following.limit, following.after_seq) == (True, 100, 41)
    assert _query(out_mode="short").out_mode is OutMode.SHORT


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"measure": "equity"}, "measure"),
        ({"out_mode": "WIDE"}, "outMode"),
        ({"limit": 0}, "limit"),
        ({"since_ms": -1}, "sinceMs"),
        ({"since_ms": 2**63}, "sinceMs"),
        ({"resample": 10, "limit": 5}, "resample"),
        ({"resample": 10, "cursor": encode_cursor(1)}, "resample"),
        ({"resample": 1}, "resample"),
        ({"instrument": "BTC/*"}, "instrument"),
        ({"instrument": "BTCUSDT"}, "instrument"),
        ({"currency": " "}, "currency"),
        ({"cursor": "%%%"}, "cursor"),
    ],
)
def test_malformed_values_are_refused_by_name(given: dict[str, Any], named: str) -> None:
    with pytest.raises(InvalidInput, match=named):
        _query(**given)
