"""Parse files from the public Binance spot data archive (data.binance.vision) into hour frames.

Users download these files themselves (we have no network access to the archive), so the
file name is the only metadata there is: it names the symbol, the data family and the kline
interval. Everything else is decided from the content, per file: whether a header line is
present (newer files have one) and whether timestamps are milliseconds or, since 2025,
microseconds. Trades become ticker rows with a synthesised top of book (see
:mod:`backtestd.marketdata.ingest.trade_quotes`); klines are kept at their native interval.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from backtestd.domain.marketdata import DataKind, HourFrame, Instrument
from backtestd.marketdata.ingest.archive import open_source
from backtestd.marketdata.ingest.binance_symbols import split_symbol
from backtestd.marketdata.ingest.csv_table import ColumnType, CsvColumns, CsvLayout, read_columns
from backtestd.marketdata.ingest.errors import ArchiveFormatError, RowError
from backtestd.marketdata.ingest.hourly import sort_by_ts, split_hours
from backtestd.marketdata.ingest.timestamps import epoch_ms
from backtestd.marketdata.ingest.trade_quotes import quotes_from_trades

__all__ = [
    "KLINE_INTERVALS",
    "ArchiveFormatError",
    "ParsedArchive",
    "detect_archive",
    "parse_archive",
    "split_symbol",
]

# Fixed-length intervals only: 3d/1w/1mo klines exist in the archive but have no fixed
# millisecond length (1mo) or are too coarse to be worth hourly storage.
KLINE_INTERVALS: tuple[str, ...] = (
    "1s", "1m", "3m", "5m", "15m", "30m", "1h", "2h", "4h", "6h", "8h", "12h", "1d",
)  # fmt: skip
KLINES, TRADES, AGG_TRADES = "klines", "trades", "aggTrades"
_UNIT_MS = {"s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}

# SYMBOL-KIND-YYYY-MM[-DD].zip|csv: daily and monthly archive files, zipped or unpacked.
_FILE_NAME = re.compile(
    r"(?P<symbol>[A-Za-z0-9]+)-(?P<kind>[A-Za-z0-9]+)-\d{4}-(?:0[1-9]|1[0-2])(?:-\d{2})?\.(?i:csv|zip)"
)

_FLOAT, _INT, _BOOL = ColumnType.FLOAT, ColumnType.INT, ColumnType.BOOL
_PRICE_FIELDS = ("open", "high", "low", "close", "volume")
_LAYOUTS: dict[str, CsvLayout] = {
    KLINES: CsvLayout(
        names=(
            "open_time", *_PRICE_FIELDS, "close_time", "quote_volume", "count",
            "taker_buy_volume", "taker_buy_quote_volume", "ignore",
        ),
        types={"open_time": _INT} | {name: _FLOAT for name in _PRICE_FIELDS},
    ),
    TRADES: CsvLayout(
        names=("id", "price", "qty", "quote_qty", "time", "is_buyer_maker", "is_best_match"),
        types={"price": _FLOAT, "qty": _FLOAT, "time": _INT, "is_buyer_maker": _BOOL},
    ),
    AGG_TRADES: CsvLayout(
        names=(
            "agg_trade_id", "price", "quantity", "first_trade_id", "last_trade_id",
            "transact_time", "is_buyer_maker", "is_best_match",
        ),
        types={"price": _FLOAT, "quantity": _FLOAT, "transact_time": _INT, "is_buyer_maker": _BOOL},
    ),
}  # fmt: skip
# (time, price, quantity) column names per trade family.
_TRADE_FIELDS = {
    TRADES: ("time", "price", "qty"),
    AGG_TRADES: ("transact_time", "price", "quantity"),
}


@dataclass(frozen=True)
class ParsedArchive:
    """One archive file's content, ready for the store."""

    instrument: Instrument
    kind: DataKind  # TICKERS (from trades/aggTrades) or KLINES
    interval: str | None  # native kline interval like "1s"/"1m"; None for trades
    frames: list[HourFrame]  # sorted by hour, one per hour that has rows

    @property
    def rows(self) -> int:
        return sum(frame.rows for frame in self.frames)


def detect_archive(path: Path) -> tuple[str, str, str | None]:
    """``(symbol, "klines" | "trades" | "aggTrades", interval or None)`` from the file name.

    The name is all the metadata the archive gives, so an unrecognised name is an error
    rather than a guess (a renamed file can be ingested by renaming it back).
    """
    match = _FILE_NAME.fullmatch(path.name)
    if match is None:
        raise ArchiveFormatError(
            f"{path}: not a Binance archive file name; expected SYMBOL-KIND-YYYY-MM[-DD].zip "
            f"or .csv, e.g. BTCUSDT-1m-2024-01-01.zip or BTCUSDT-trades-2024-01.zip"
        )
    symbol, token = match["symbol"].upper(), match["kind"]
    if token in (TRADES, AGG_TRADES):
        return symbol, token, None
    if token in KLINE_INTERVALS:
        return symbol, KLINES, token
    raise ArchiveFormatError(
        f"{path}: unsupported data kind {token!r}; expected trades, aggTrades or a kline "
        f"interval ({', '.join(KLINE_INTERVALS)})"
    )


def parse_archive(path: Path, instrument: Instrument | None = None) -> ParsedArchive:
    """Read a Binance archive file (.csv or .zip of one csv) into hourly frames.

    ``instrument`` overrides the base/quote split of the file name's symbol. Raises
    :class:`ArchiveFormatError` (a ``ValueError``) naming the file, and the line when one is
    to blame, for anything that cannot be ingested faithfully.
    """
    symbol, family, interval = detect_archive(path)
    if instrument is None:
        try:
            instrument = split_symbol(symbol)
        except ValueError as exc:
            raise ArchiveFormatError(f"{path}: {exc}") from exc
    table = read_columns(open_source(path), _LAYOUTS[family])
    if family == KLINES:
        assert interval is not None  # detect_archive names one for every kline file
        kind, columns = DataKind.KLINES, _kline_columns(table, interval)
    else:
        kind, columns = DataKind.TICKERS, _ticker_columns(table, *_TRADE_FIELDS[family])
    return ParsedArchive(instrument, kind, interval, split_hours(kind, columns))


def _kline_columns(table: CsvColumns, interval: str) -> dict[str, np.ndarray]:
    """Kline rows keyed by open time; values are stored exactly as Binance published them.

    Every open time must be an epoch multiple of the interval, as Binance's are: prepares
    trust that a stored bar lies inside one prepared bar (docs/prepare.md, "No look-ahead"),
    and a shifted bar would be closed before it ends.
    """
    table.require_finite_non_negative(*_PRICE_FIELDS)
    ts = _epoch_ms(table, "open_time")
    width = int(interval[:-1]) * _UNIT_MS[interval[-1]]
    misaligned = ts % width != 0
    if misaligned.any():
        row = int(np.argmax(misaligned))
        raise table.fail(
            row,
            f"open_time {int(ts[row])} is not a multiple of the file's {interval} interval; "
            "kline bars must open on interval boundaries (check the file name's interval)",
        )
    columns = {"ts": ts}
    columns |= {name: table.columns[name] for name in _PRICE_FIELDS}
    return sort_by_ts(columns)


def _ticker_columns(
    table: CsvColumns, time: str, price: str, quantity: str
) -> dict[str, np.ndarray]:
    """One ticker row per trade: ``last``/``volume`` are the trade, bid/ask are synthesised."""
    table.require_finite_non_negative(price, quantity)
    trades = sort_by_ts(
        {
            "ts": _epoch_ms(table, time),
            "price": table.columns[price],
            "qty": table.columns[quantity],
            "buyer_maker": table.columns["is_buyer_maker"],
        }
    )
    quotes = quotes_from_trades(trades["price"], trades["qty"], trades["buyer_maker"])
    return {"ts": trades["ts"], **quotes, "last": trades["price"], "volume": trades["qty"]}


def _epoch_ms(table: CsvColumns, name: str) -> np.ndarray:
    try:
        return epoch_ms(table.columns[name])
    except RowError as exc:
        raise table.fail(exc.row, f"column {name!r}: {exc.reason}") from exc
