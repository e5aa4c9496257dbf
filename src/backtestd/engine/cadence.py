"""Prepare cadences: the labels a prepare accepts, their widths, and which kind takes which.

The accepted sets differ per kind because they answer different questions. A kline prepare
*resamples* bars, so it only offers the bar widths the engine's candle callbacks are tuned for
(and that divide a day evenly); a ticker or funding prepare only *records* the cadence (ticks
and settlements are never resampled), so it accepts the wider list from the wire reference §4.8.
Keeping the tables here, in order, lets the 400 message list them exactly as documented.
"""

from __future__ import annotations

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

KLINE_CADENCES: tuple[str, ...] = ("1s", "1m", "5m", "15m", "30m", "1h", "4h", "1d")
"""Bar widths a managed ``kline`` prepare can resample to, in the order the 400 message lists."""

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
    ('1s', '1m', '5m')
    """
    try:
        return _ACCEPTED[kind]
    except KeyError:
        raise ValueError(
            f"unknown prepare type {kind!r}; use one of {', '.join(_ACCEPTED)}"
        ) from None


def resolve_cadence(kind: str, label: str | None) -> tuple[str, int]:
    """Validate a request's ``cadence`` for a managed prepare and return ``(label, width_ms)``.

    ``None`` (the field omitted) means ``1s``. A label outside the kind's accepted set raises
    ``ValueError`` whose message lists the accepted labels in order, because the wire contract
    says the 400 for an unavailable kline cadence must name the ones that are available.
    Labels are matched exactly: ``1M`` is not ``1m``.

    >>> resolve_cadence("kline", "4h")
    ('4h', 14400000)
    >>> resolve_cadence("ticker", None)
    ('1s', 1000)
    >>> resolve_cadence("kline", "5s")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cadence '5s' is not available for kline prepares; use one of 1s, 1m, 5m, ..., 1d
    """
    accepted = accepted_cadences(kind)
    if label is None:
        return DEFAULT_CADENCE, CADENCE_MS[DEFAULT_CADENCE]
    if label not in accepted:
        raise ValueError(
            f"cadence {label!r} is not available for {kind} prepares; "
            f"use one of {', '.join(accepted)}"
        )
    return label, CADENCE_MS[label]
