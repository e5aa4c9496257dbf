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
    allowed_cadences,
    label_ms,
    resolve_cadence,
)

WIRE_TICKER_FUNDING = (
    "1s 5s 1m 3m 5m 15m 30m 1h 2h 4h 8h 12h 1d 1w 1q".split()  # wire reference §4.8
)
WIRE_KLINE = WIRE_TICKER_FUNDING  # wire reference §7 (0.128.49 kline labels)


def test_docstring_examples_run() -> None:
    assert doctest.testmod(cadence).failed == 0


def test_tables_match_the_wire_reference_in_order() -> None:
    assert list(TICKER_CADENCES) == WIRE_TICKER_FUNDING
    assert list(FUNDING_CADENCES) == WIRE_TICKER_FUNDING
    assert list(KLINE_CADENCES) == WIRE_KLINE
    assert set(TICKER_CADENCES) | set(KLINE_CADENCES) | {"15s"} == set(CADENCE_MS)
    assert "15s" not in KLINE_CADENCES


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


@pytest.mark.parametrize("label", ["15s", "500ms", "1.5s", "0s", "2d", "1y"])
def test_refused_kline_cadence_message_lists_the_accepted_ones(label: str) -> None:
    with pytest.raises(ValueError, match="use one of") as info:
        resolve_cadence("kline", label)
    assert str(info.value) == (
        f"cadence '{label}' is not available for kline prepares; "
        "use one of 1s, 5s, 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q"
    )


def reference_allowed(native_ms: int) -> list[str]:
    """Independent statement of the rule: a prepared bar is a whole number of source bars."""
    widths = {"s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
    out = []
    for label in WIRE_KLINE:
        number, unit = int(label[:-1]), label[-1]
        width = number * (7 * widths["d"] if unit == "w" else 90 * widths["d"] if unit == "q"
                          else widths[unit])  # fmt: skip
        if width % native_ms == 0:
            out.append(label)
    return out


NATIVE_INTERVALS = "1s 1m 3m 5m 15m 30m 1h 2h 4h 6h 8h 12h 1d".split()  # Binance archive


@pytest.mark.parametrize("native", NATIVE_INTERVALS)
def test_allowed_kline_cadences_are_whole_multiples_of_the_native_width(native: str) -> None:
    native_ms = label_ms(native)
    allowed = allowed_cadences("kline", native_ms)
    assert list(allowed) == reference_allowed(native_ms)
    assert native in allowed or native == "6h"
    for label in WIRE_KLINE:
        if label in allowed:
            assert resolve_cadence("kline", label, native_ms) == (label, CADENCE_MS[label])
        else:
            with pytest.raises(ValueError, match=f"use one of {', '.join(allowed)}$"):
                resolve_cadence("kline", label, native_ms)


def test_one_minute_over_hourly_klines_names_the_source_and_the_allowed_list() -> None:
    with pytest.raises(ValueError, match="use one of") as info:
        resolve_cadence("kline", "1m", label_ms("1h"))
    assert str(info.value) == (
        "cadence '1m' is not available for kline prepares of this instrument (its stored bars "
        "are 1h wide, and a prepared bar must be a whole number of them); "
        "use one of 1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q"
    )


def test_omitted_kline_cadence_over_a_coarse_source_is_its_finest_allowed_label() -> None:
    assert resolve_cadence("kline", None, label_ms("1h")) == ("1h", 3_600_000)
    assert resolve_cadence("kline", None, 1_000) == ("1s", 1_000)


@pytest.mark.parametrize("kind", ["ticker", "funding"])
def test_recorded_kinds_ignore_the_native_width(kind: str) -> None:
    assert allowed_cadences(kind, 3_600_000) == TICKER_CADENCES


@pytest.mark.parametrize("text", ["", "0s", "1.5s", "500ms", "1M", "h"])
def test_label_ms_refuses_non_labels(text: str) -> None:
    with pytest.raises(ValueError, match="not a cadence label"):
        label_ms(text)


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
