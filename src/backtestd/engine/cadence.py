"""Prepare cadences: the labels a prepare accepts, their widths, and which kind takes which.

Every kind accepts the same fifteen labels. A kline prepare *resamples* source bars, so an
instrument allows only the labels that are whole multiples of its source bar width (see
:func:`allowed_cadences`); a ticker or funding prepare only *records* the cadence (ticks and
settlements are never resampled). Keeping the table here, in order, lets the 400 message list
the allowed labels exactly.
"""

from __future__ import annotations

import math

from backtestd.domain.marketdata import DataType

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

KLINE_CADENCES: tuple[str, ...] = TICKER_CADENCES
"""Bar widths a managed ``kline`` prepare can resample to, in the order the 400 message lists.

Which of them a given instrument allows depends on its source bars: see :func:`allowed_cadences`.
"""

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
    ('1s', '5s', '1m')
    """
    try:
        return _ACCEPTED[kind]
    except KeyError:
        raise ValueError(
            f"unknown prepare type {kind!r}; use one of {', '.join(_ACCEPTED)}"
        ) from None


def allowed_cadences(kind: str, native_ms: int | None) -> tuple[str, ...]:
    """The labels a prepare of ``kind`` may use over source data of width ``native_ms``.

    A ``kline`` bar can only be built from whole source bars: a cadence finer than the source
    bars, or not a whole multiple of them, would stretch a source bar over several output bars
    and show its close before its time (look-ahead). Ticks, funding rows and unknown sources
    (``native_ms`` None) constrain nothing.

    >>> allowed_cadences("kline", 3_600_000)
    ('1h', '2h', '4h', '8h', '12h', '1d', '1w', '1q')
    >>> allowed_cadences("kline", 5_000)[:3]
    ('5s', '1m', '3m')
    """
    accepted = accepted_cadences(kind)
    if kind != DataType.KLINE or not native_ms:
        return accepted
    return tuple(label for label in accepted if CADENCE_MS[label] % native_ms == 0)


def resolve_cadence(kind: str, label: str | None, native_ms: int | None = None) -> tuple[str, int]:
    """Validate a request's ``cadence`` for a managed prepare and return ``(label, width_ms)``.

    ``None`` (the field omitted) means the finest allowed cadence (``1s`` unless the source bars
    are coarser). A label outside the allowed set raises ``ValueError`` whose message lists
    the allowed labels in order, because the wire contract says the 400 for an unavailable
    kline cadence must name the ones that are available. Labels are matched exactly: ``1M``
    is not ``1m``.

    >>> resolve_cadence("kline", "4h")
    ('4h', 14400000)
    >>> resolve_cadence("ticker", None)
    ('1s', 1000)
    >>> resolve_cadence("kline", None, 3_600_000)
    ('1h', 3600000)
    >>> try:
    ...     resolve_cadence("kline", "1m", 3_600_000)
    ... except ValueError as exc:
    ...     print(str(exc)[:59])
    cadence '1m' is finer than, or not a whole multiple of, the
    """
    allowed = allowed_cadences(kind, native_ms)
    if label is None:
        label = DEFAULT_CADENCE if DEFAULT_CADENCE in allowed else allowed[0]
        return label, CADENCE_MS[label]
    if label in allowed:
        return label, CADENCE_MS[label]
    if label in CADENCE_MS and native_ms and label in accepted_cadences(kind):
        source = label_of(native_ms)
        raise ValueError(
            f"cadence {label!r} is finer than, or not a whole multiple of, the source bars of "
            f"this instrument ({source}); use one of {', '.join(allowed)}"
        )
    raise ValueError(
        f"cadence {label!r} is not available for {kind} prepares; use one of {', '.join(allowed)}"
    )


_UNIT_MS = {"s": SECOND_MS, "m": MINUTE_MS, "h": HOUR_MS, "d": DAY_MS, "w": 7 * DAY_MS}


def width_of(label: str) -> int:
    """Width in ms of an interval label such as ``1s``, ``6h`` or ``1q`` (source intervals
    include widths no prepare label has, like Binance's ``6h``).

    >>> width_of("6h"), width_of("1q")
    (21600000, 7776000000)
    """
    if label in CADENCE_MS:
        return CADENCE_MS[label]
    number, unit = label[:-1], label[-1:]
    if not number.isdigit() or unit not in _UNIT_MS:
        raise ValueError(f"not an interval label: {label!r}")
    return int(number) * _UNIT_MS[unit]


def source_width(labels: list[str]) -> int | None:
    """The native bar width of a source holding bars of every interval in ``labels``.

    The least common multiple, not the coarsest: a prepared bar must be made of whole bars of
    *every* interval stored. Over ``3m`` and ``5m`` bars the coarsest (5 min) would still let a
    ``5m`` prepare cut a ``3m`` bar (00:03-00:06) in two and show its close early; 15 min
    cannot. ``None`` for no labels.

    >>> source_width(["3m", "5m"]), source_width(["1h", "1m"]), source_width([])
    (900000, 3600000, None)
    """
    widths = [width_of(label) for label in labels]
    return math.lcm(*widths) if widths else None


def label_of(width_ms: int) -> str:
    """The label of a width, or the width in seconds when no label has it.

    >>> label_of(60_000), label_of(7_000)
    ('1m', '7s')
    """
    for label, width in CADENCE_MS.items():
        if width == width_ms:
            return label
    return f"{width_ms // 1000}s" if width_ms % 1000 == 0 else f"{width_ms}ms"
