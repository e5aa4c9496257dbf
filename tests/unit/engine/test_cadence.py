"""Prepare cadences: widths, the accepted set per kind, and the 400 message."""

from __future__ import annotations

import doctest

import pytest

from backtestd.engine import cadence
from backtestd.engine.cadence import (
    CADENCE_MS,
    FUNDING_CADENCES,
    KLINE_CADENCES,
    TICKER_CADENCES,
    accepted_cadences,
    resolve_cadence,
)

WIRE_TICKER_FUNDING = (
    "1s 5s 1m 3m 5m 15m 30m 1h 2h 4h 8h 12h 1d 1w 1q".split()  # wire reference §4.8
)
WIRE_KLINE = WIRE_TICKER_FUNDING  # qtsurfer-api-client 0.128.49 lists all fifteen for klines


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(cadence)
    assert outcome.failed == 0
    assert outcome.attempted > 0


def test_tables_match_the_wire_reference_in_order() -> None:
    assert list(TICKER_CADENCES) == WIRE_TICKER_FUNDING
    assert list(FUNDING_CADENCES) == WIRE_TICKER_FUNDING
    assert list(KLINE_CADENCES) == WIRE_KLINE
    assert set(TICKER_CADENCES) | set(KLINE_CADENCES) | {"15s"} == set(CADENCE_MS)


@pytest.mark.parametrize(
    ("label", "ms"),
    [
        ("1s", 1_000),
        ("5s", 5_000),
        ("15s", 15_000),
        ("1m", 60_000),
        ("3m", 180_000),
        ("5m", 300_000),
        ("15m", 900_000),
        ("30m", 1_800_000),
        ("1h", 3_600_000),
        ("2h", 7_200_000),
        ("4h", 14_400_000),
        ("8h", 28_800_000),
        ("12h", 43_200_000),
        ("1d", 86_400_000),
        ("1w", 604_800_000),
        ("1q", 90 * 86_400_000),
    ],
)
def test_cadence_widths(label: str, ms: int) -> None:
    assert CADENCE_MS[label] == ms


@pytest.mark.parametrize("kind", ["ticker", "kline", "funding"])
def test_omitted_cadence_is_one_second(kind: str) -> None:
    assert resolve_cadence(kind, None) == ("1s", 1_000)


@pytest.mark.parametrize("kind", ["ticker", "kline", "funding"])
@pytest.mark.parametrize("label", list(CADENCE_MS))
def test_every_label_is_accepted_exactly_when_listed(kind: str, label: str) -> None:
    accepted = WIRE_KLINE if kind == "kline" else WIRE_TICKER_FUNDING
    if label in accepted:
        assert resolve_cadence(kind, label) == (label, CADENCE_MS[label])
    else:
        with pytest.raises(ValueError, match=f"use one of {', '.join(accepted)}$"):
            resolve_cadence(kind, label)


@pytest.mark.parametrize(
    ("native", "label", "allowed"),
    [
        ("1h", "1m", "1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q"),
        ("1h", "30m", "1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q"),
        ("4h", "1h", "4h, 8h, 12h, 1d, 1w, 1q"),
        ("5m", "3m", "5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q"),
        ("1m", "5s", "1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q"),
    ],
)
def test_a_kline_cadence_finer_than_the_source_is_refused_listing_the_allowed(
    native: str, label: str, allowed: str
) -> None:
    with pytest.raises(ValueError, match="finer than") as info:
        resolve_cadence("kline", label, CADENCE_MS[native])
    assert str(info.value) == (
        f"cadence '{label}' is finer than, or not a whole multiple of, the source bars of this "
        f"instrument ({native}); use one of {allowed}"
    )


def test_the_default_cadence_is_the_finest_allowed() -> None:
    assert resolve_cadence("kline", None, CADENCE_MS["1h"]) == ("1h", 3_600_000)
    assert resolve_cadence("kline", None, CADENCE_MS["1s"]) == ("1s", 1_000)
    assert resolve_cadence("ticker", None, CADENCE_MS["1h"]) == ("1s", 1_000)  # ticks: any


def test_15s_is_not_a_prepare_cadence() -> None:
    with pytest.raises(ValueError, match="not available for kline prepares"):
        resolve_cadence("kline", "15s")


@pytest.mark.parametrize("label", ["", "1M", "1H", "60s", "1 m", "1d ", "2d", "1y", "rt"])
@pytest.mark.parametrize("kind", ["ticker", "funding"])
def test_unknown_labels_are_refused_for_recorded_kinds(kind: str, label: str) -> None:
    with pytest.raises(ValueError, match=f"not available for {kind} prepares; use one of 1s, 5s"):
        resolve_cadence(kind, label)


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown prepare type 'klines'"):
        resolve_cadence("klines", "1m")
    with pytest.raises(ValueError, match="unknown prepare type"):
        accepted_cadences("trades")
