"""Shared vocabulary for market data: instruments, data kinds and hourly frames.

Every producer of market data (the simulated exchange, archive ingest, dataset uploads)
hands the store an :class:`HourFrame`; every consumer (downloads, prepare) reads one back.
Keeping the column layout in one place is what lets lastra files, parquet conversions and
the JVM's memory-mapped prepared data agree without per-format special cases.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

HOUR_MS = 3_600_000


class DataKind(enum.StrEnum):
    """A market-data type as stored per hour (the download path uses the plural names)."""

    TICKERS = "tickers"
    KLINES = "klines"
    FUNDING = "funding"

    @classmethod
    def parse(cls, text: str) -> DataKind:
        """The kind named in either spelling the wire uses: plural (``klines``, the stored
        and the import's name) or singular (``kline``, the backtest path's).

        >>> DataKind.parse("ticker"), DataKind.parse("klines")
        (<DataKind.TICKERS: 'tickers'>, <DataKind.KLINES: 'klines'>)
        """
        if text in cls.__members__.values():
            return cls(text)
        return DataType(text).kind


class DataType(enum.StrEnum):
    """The data a backtest runs on: the wire's backtest ``type`` (``/backtest/{exchange}/{type}``),
    the QTScript header's source and the engine host's feed. Hours are stored, and downloaded,
    under the plural :class:`DataKind` of the same data (:attr:`kind`)."""

    TICKER = "ticker"
    KLINE = "kline"
    FUNDING = "funding"

    @property
    def kind(self) -> DataKind:
        """The stored-hour kind of this data (``tickers``, ``klines``, ``funding``)."""
        return _KIND_OF_TYPE[self]

    @classmethod
    def of_kind(cls, kind: DataKind) -> DataType:
        return next(t for t, k in _KIND_OF_TYPE.items() if k is kind)


RUNNABLE_TYPES: frozenset[DataType] = frozenset({DataType.TICKER, DataType.KLINE})
"""The data a strategy can be executed or swept over (funding rates only feed other runs)."""

_KIND_OF_TYPE: dict[DataType, DataKind] = {
    DataType.TICKER: DataKind.TICKERS,
    DataType.KLINE: DataKind.KLINES,
    DataType.FUNDING: DataKind.FUNDING,
}


class Segment(enum.StrEnum):
    SPOT = "spot"
    FUTURES = "futures"


# Column names that are two words, spelled once (the data files' and the engine's names; they
# are not the API's, though some happen to match it).
BID_SIZE = "bidSize"
ASK_SIZE = "askSize"
MARK_PRICE = "markPrice"
CLOSE_TS = "closeTs"
"""A kline's close time (int64 epoch ms), fed to runs beside ``ts``, the bar's open time."""

# Column layout per kind. The first column is always ``ts`` (int64 epoch milliseconds, UTC);
# every other column is float64. Order matters: it is the order in lastra and parquet files.
TICKER_COLUMNS: tuple[str, ...] = ("ts", "bid", BID_SIZE, "ask", ASK_SIZE, "last", "volume")
KLINE_COLUMNS: tuple[str, ...] = ("ts", "open", "high", "low", "close", "volume")
FUNDING_COLUMNS: tuple[str, ...] = ("ts", "rate", MARK_PRICE)

COLUMNS_BY_KIND: dict[DataKind, tuple[str, ...]] = {
    DataKind.TICKERS: TICKER_COLUMNS,
    DataKind.KLINES: KLINE_COLUMNS,
    DataKind.FUNDING: FUNDING_COLUMNS,
}

RUN_COLUMNS: dict[DataType, tuple[str, ...]] = {
    DataType.TICKER: TICKER_COLUMNS,
    DataType.KLINE: ("ts", CLOSE_TS, "open", "high", "low", "close", "volume"),
    DataType.FUNDING: FUNDING_COLUMNS,
}
"""Columns a run is fed, in the order the engine's callbacks take them: the stored layout, plus
``closeTs`` for klines (``ts`` is a bar's open time)."""

INT64_COLUMNS = frozenset({"ts", CLOSE_TS})
"""Columns held as int64 (epoch milliseconds); every other column is float64."""


def column_dtype(name: str) -> np.dtype[np.generic]:
    """The little-endian dtype of a column, in memory, in column files and in lastra/parquet."""
    return np.dtype("<i8") if name in INT64_COLUMNS else np.dtype("<f8")


_SYMBOL = re.compile(r"^([A-Z0-9]{1,20})/([A-Z0-9]{1,20})(?::([A-Z0-9]{1,20}))?$")


@dataclass(frozen=True, order=True)
class Instrument:
    """A tradable pair. ``settle`` is set only for derivatives (perpetual futures)."""

    base: str
    quote: str
    settle: str | None = None

    @property
    def symbol(self) -> str:
        """``BTC/USDT`` for spot, ``BTC/USDT:USDT`` for a perpetual settled in USDT."""
        pair = f"{self.base}/{self.quote}"
        return f"{pair}:{self.settle}" if self.settle else pair

    @property
    def pair(self) -> str:
        """The catalogue id, ``<BASE>/<QUOTE>``, without the settle currency."""
        return f"{self.base}/{self.quote}"

    @property
    def segment(self) -> Segment:
        return Segment.FUTURES if self.settle else Segment.SPOT

    @classmethod
    def parse(cls, text: str) -> Instrument:
        """Parse ``BASE/QUOTE`` or ``BASE/QUOTE:SETTLE`` (case-insensitive, stored upper case)."""
        match = _SYMBOL.match(text.strip().upper())
        if match is None:
            raise ValueError(
                f"instrument {text!r} is not of the form BASE/QUOTE or BASE/QUOTE:SETTLE"
            )
        return cls(match.group(1), match.group(2), match.group(3))

    def __str__(self) -> str:
        return self.symbol


def hour_start(moment: datetime) -> datetime:
    """Truncate an aware datetime to the start of its UTC hour."""
    moment = moment.astimezone(UTC)
    return moment.replace(minute=0, second=0, microsecond=0)


def hour_ms(hour: datetime) -> int:
    """Epoch milliseconds of an hour start."""
    return int(hour_start(hour).timestamp()) * 1000


def hour_from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms // HOUR_MS * HOUR_MS / 1000, tz=UTC)


def hours_between(start: datetime, end: datetime) -> list[datetime]:
    """Every hour start in ``[start, end)``, both truncated to hours."""
    first, last = hour_start(start), hour_start(end)
    count = int((last - first) / timedelta(hours=1))
    return [first + timedelta(hours=i) for i in range(max(count, 0))]


@dataclass(frozen=True)
class HourFrame:
    """One UTC hour of one data kind for one instrument, as named columns.

    ``columns`` holds exactly ``COLUMNS_BY_KIND[kind]``: ``ts`` as int64 epoch ms sorted
    ascending within ``[hour, hour + 1h)``, the rest float64 of the same length.
    """

    kind: DataKind
    hour: datetime
    columns: dict[str, np.ndarray] = field(repr=False)

    def __post_init__(self) -> None:
        expected = COLUMNS_BY_KIND[self.kind]
        if tuple(self.columns) != expected:
            raise ValueError(
                f"{self.kind} frame needs columns {expected}, got {tuple(self.columns)}"
            )
        lengths = {len(v) for v in self.columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"{self.kind} frame columns differ in length: {sorted(lengths)}")

    @property
    def rows(self) -> int:
        return len(self.columns["ts"])

    @classmethod
    def empty(cls, kind: DataKind, hour: datetime) -> HourFrame:
        cols = {name: np.empty(0, dtype=column_dtype(name)) for name in COLUMNS_BY_KIND[kind]}
        return cls(kind, hour_start(hour), cols)
