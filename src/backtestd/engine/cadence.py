"""Prepare cadences: the labels a prepare accepts, their widths, and which kind takes which.

Every kind accepts the label list of the wire reference §4.8 / §7 (``1s`` ... ``1q``). A ticker
or funding prepare only *records* the cadence (ticks and settlements are never resampled). A
kline prepare *resamples* stored bars, so it is further limited by the source's native bar
width: a bar can only be built from whole source bars, otherwise a coarse source bar would be
fed as a finer one and its close would be seen before its close time (look-ahead). So the
kline labels allowed for one instrument are those whose width is a whole multiple of the
native width (:func:`allowed_cadences`). Keeping the tables here, in order, lets every 400
message list them exactly as documented.
"""

from __future__ import annotations

import math
import re

SECOND_MS = 1_000
MINUTE_MS = 60 * SECOND_MS
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS

CADENCE_MS: dict[str, int] = {
    "1s": SECOND_MS,
    "5s": 5 * SECOND_MS,
    "15s": 15 * SECOND_MS,
    "1m": MINUTE_MS,
    "3m": 3 * MINUTE_MS,
    "5m": 5 * MINUTE_MS,
    "15m": 15 * MINUTE_MS,
    "30m": 30 * MINUTE_MS,
    "1h": HOUR_MS,
    "2h": 2 * HOUR_MS,
    "4h": 4 * HOUR_MS,
    "8h": 8 * HOUR_MS,
    "12h": 12 * HOUR_MS,
    "1d": DAY_MS,
    "1w": 7 * DAY_MS,
    # A "quarter" is a fixed 90 days, not a calendar quarter: every cadence is a fixed width so
    # buckets can be computed as ``ts // width * width`` without a calendar.
    "1q": 90 * DAY_MS,
}
"""Width in milliseconds of every cadence label the service knows (``15s`` is for datasets)."""

TICKER_CADENCES: tuple[str, ...] = (
    "1s",
    "5s",
    "1m",
    "3m",
    "5m",
    "15m",
    "30m",
    "1h",
    "2h",
    "4h",
    "8h",
    "12h",
    "1d",
    "1w",
    "1q",
)
"""Cadences a managed ``ticker`` prepare accepts (recorded only; ticks are not resampled)."""

FUNDING_CADENCES: tuple[str, ...] = TICKER_CADENCES
"""Cadences a managed ``funding`` prepare accepts (recorded only; rows are kept as stored)."""

KLINE_CADENCES: tuple[str, ...] = TICKER_CADENCES
"""Bar widths a managed ``kline`` prepare can resample to over a one-second source, in the
order the 400 message lists (the 0.128.49 client's list); see :func:`allowed_cadences`."""

DEFAULT_CADENCE = "1s"
"""The cadence of a prepare that does not name one."""

_ACCEPTED: dict[str, tuple[str, ...]] = {
    "ticker": TICKER_CADENCES,
    "kline": KLINE_CADENCES,
    "funding": FUNDING_CADENCES,
}


def accepted_cadences(kind: str) -> tuple[str, ...]:
    """The cadence labels a managed prepare of ``kind`` (the path ``type``) accepts, in order.

    >>> accepted_cadences("kline")[:3]
    ('1s', '5s', '1m')
    """
    try:
        return _ACCEPTED[kind]
    except KeyError:
        raise ValueError(
            f"unknown prepare type {kind!r}; use one of {', '.join(_ACCEPTED)}"
        ) from None


_UNIT_MS = {"s": SECOND_MS, "m": MINUTE_MS, "h": HOUR_MS, "d": DAY_MS, "w": 7 * DAY_MS}
_LABEL = re.compile(r"([1-9][0-9]{0,5})(s|m|h|d|w)")


def label_ms(label: str) -> int:
    """Width in ms of a cadence label or a Binance-style interval such as ``6h`` (whole seconds).

    Used for the native interval of ingested kline files (named by the archive), which may be
    one the prepare list does not offer (``6h``). Raises ``ValueError`` for anything else.

    >>> label_ms("6h"), label_ms("1q")
    (21600000, 7776000000)
    """
    if label in CADENCE_MS:
        return CADENCE_MS[label]
    match = _LABEL.fullmatch(label)
    if match is None:
        raise ValueError(f"{label!r} is not a cadence label like 1s, 1m, 1h or 1d")
    return int(match[1]) * _UNIT_MS[match[2]]


def native_width_ms(intervals: list[str]) -> int | None:
    """The native bar width of a source holding bars of these intervals (``None`` if none).

    With several intervals it is their least common multiple: the finest width of which every
    stored bar is a whole fraction, so a prepared bar never splits any source bar.

    >>> native_width_ms(["1h"]), native_width_ms(["1h", "1m"]), native_width_ms([])
    (3600000, 3600000, None)
    """
    widths = [label_ms(interval) for interval in intervals]
    return math.lcm(*widths) if widths else None


def allowed_cadences(kind: str, native_cadence_ms: int | None = None) -> tuple[str, ...]:
    """The cadence labels a managed prepare of ``kind`` may use over a given source, in order.

    ``native_cadence_ms`` is the width of the source's bars (``None`` when unknown or when the
    kind is not resampled). For ``kline`` the result is the labels whose width is a whole
    multiple of it, so every prepared bar is made of whole source bars and closes no earlier
    than the last source bar it contains. Ticker and funding prepares are never resampled, so
    their list does not depend on the source.

    >>> allowed_cadences("kline", HOUR_MS)
    ('1h', '2h', '4h', '8h', '12h', '1d', '1w', '1q')
    >>> allowed_cadences("kline", 6 * HOUR_MS)
    ('12h', '1d', '1w', '1q')
    """
    accepted = accepted_cadences(kind)
    if kind != "kline" or native_cadence_ms is None:
        return accepted
    if native_cadence_ms <= 0:
        raise ValueError(f"native cadence must be positive, got {native_cadence_ms} ms")
    return tuple(label for label in accepted if CADENCE_MS[label] % native_cadence_ms == 0)


def resolve_cadence(
    kind: str, label: str | None, native_cadence_ms: int | None = None
) -> tuple[str, int]:
    """Validate a request's ``cadence`` for a managed prepare and return ``(label, width_ms)``.

    ``None`` (the field omitted) means ``1s``, or for a kline source coarser than a second the
    finest allowed label. A label outside :func:`allowed_cadences` raises ``ValueError`` whose
    message lists the allowed labels in order, because the wire contract says the 400 for an
    unavailable kline cadence must name the ones that are available. Labels are matched
    exactly: ``1M`` is not ``1m``; ``500ms`` or ``1.5s`` (not whole seconds) are refused.

    >>> resolve_cadence("kline", "4h")
    ('4h', 14400000)
    >>> resolve_cadence("ticker", None)
    ('1s', 1000)
    >>> resolve_cadence("kline", "1m", HOUR_MS)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cadence '1m' is not available for kline prepares of this instrument (its ...
    """
    allowed = allowed_cadences(kind, native_cadence_ms)
    coarse_source = kind == "kline" and native_cadence_ms is not None
    if label is None:
        if DEFAULT_CADENCE in allowed or not allowed:
            return DEFAULT_CADENCE, CADENCE_MS[DEFAULT_CADENCE]
        return allowed[0], CADENCE_MS[allowed[0]]
    if label not in allowed:
        if not allowed:
            raise ValueError(
                f"no kline cadence fits this instrument's native bar width of "
                f"{native_cadence_ms} ms; prepare its tickers instead"
            )
        source = (
            f" of this instrument (its stored bars are {_describe(native_cadence_ms)} wide, "
            "and a prepared bar must be a whole number of them)"
            if coarse_source and label in accepted_cadences(kind)
            else ""
        )
        raise ValueError(
            f"cadence {label!r} is not available for {kind} prepares{source}; "
            f"use one of {', '.join(allowed)}"
        )
    return label, CADENCE_MS[label]


def _describe(width_ms: int | None) -> str:
    """The label of a width when there is one (``1h``), else the width in ms."""
    for label, ms in CADENCE_MS.items():
        if ms == width_ms:
            return label
    return f"{width_ms} ms"
