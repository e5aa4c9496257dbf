"""Write files the way the public Binance spot archive does, so ingest tests need no network.

The writer knows the archive's conventions (column order, 8-decimal prices, ``True``/``False``
flags, optional header line, µs timestamps since 2025, a zip holding one csv named like the
zip) and nothing about how backtestd parses them: the tests compare parser output with the
rows given here, not with anything the parser computed.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

KLINE_HEADER = (
    "open_time,open,high,low,close,volume,close_time,quote_volume,count,"
    "taker_buy_volume,taker_buy_quote_volume,ignore"
)
TRADE_HEADER = "id,price,qty,quote_qty,time,is_buyer_maker,is_best_match"
AGG_TRADE_HEADER = (
    "agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,"
    "is_buyer_maker,is_best_match"
)
INTERVAL_MS = {
    "1s": 1_000,
    "1m": 60_000,
    "3m": 180_000,
    "5m": 300_000,
    "15m": 900_000,
    "30m": 1_800_000,
    "1h": 3_600_000,
    "2h": 7_200_000,
    "4h": 14_400_000,
    "6h": 21_600_000,
    "8h": 28_800_000,
    "12h": 43_200_000,
    "1d": 86_400_000,
}
# Added to ms timestamps written as µs, so a test can tell flooring from rounding.
MICROS_EXTRA = 987


@dataclass(frozen=True)
class Kline:
    open_time: int  # epoch ms; written as µs when the file is in µs
    open: float
    high: float
    low: float
    close: float
    volume: float


@dataclass(frozen=True)
class Trade:
    id: int
    price: float
    qty: float
    time: int  # epoch ms; written as µs when the file is in µs
    is_buyer_maker: bool


def _num(value: float) -> str:
    return f"{value:.8f}"


def _time(ms: int, micros: bool) -> str:
    return str(ms * 1000 + MICROS_EXTRA if micros else ms)


def kline_lines(rows: Iterable[Kline], interval: str, *, micros: bool = False) -> list[str]:
    step = INTERVAL_MS[interval]
    lines = []
    for k in rows:
        close_time = k.open_time + step - 1
        taker = k.volume / 2
        lines.append(
            ",".join(
                (
                    _time(k.open_time, micros),
                    _num(k.open),
                    _num(k.high),
                    _num(k.low),
                    _num(k.close),
                    _num(k.volume),
                    str(close_time * 1000 + 999 if micros else close_time),
                    _num(k.volume * k.close),
                    "7",
                    _num(taker),
                    _num(taker * k.close),
                    "0",
                )
            )
        )
    return lines


def trade_lines(rows: Iterable[Trade], *, agg: bool = False, micros: bool = False) -> list[str]:
    lines = []
    for t in rows:
        maker = "True" if t.is_buyer_maker else "False"
        time = _time(t.time, micros)
        if agg:
            fields = (str(t.id), _num(t.price), _num(t.qty), str(t.id * 3), str(t.id * 3 + 2))
            lines.append(",".join((*fields, time, maker, "True")))
        else:
            quote_qty = _num(t.price * t.qty)
            lines.append(
                ",".join((str(t.id), _num(t.price), _num(t.qty), quote_qty, time, maker, "True"))
            )
    return lines


def write_csv_text(
    directory: Path, name: str, lines: Sequence[str], *, zipped: bool, header: str | None = None
) -> Path:
    """Write ``name``.csv, or ``name``.zip holding ``name``.csv; returns the written path."""
    text = "".join(f"{line}\n" for line in ([header] if header else []) + list(lines))
    if not zipped:
        path = directory / f"{name}.csv"
        path.write_text(text, encoding="utf-8", newline="")
        return path
    return write_zip(directory / f"{name}.zip", {f"{name}.csv": text})


def write_zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for member, text in members.items():
            archive.writestr(member, text)
    return path


def write_klines(
    directory: Path,
    rows: Iterable[Kline],
    *,
    symbol: str = "BTCUSDT",
    interval: str = "1m",
    period: str = "2024-01-01",
    header: bool = False,
    zipped: bool = True,
    micros: bool = False,
) -> Path:
    name = f"{symbol}-{interval}-{period}"
    lines = kline_lines(rows, interval, micros=micros)
    return write_csv_text(
        directory, name, lines, zipped=zipped, header=KLINE_HEADER if header else None
    )


def write_trades(
    directory: Path,
    rows: Iterable[Trade],
    *,
    symbol: str = "BTCUSDT",
    period: str = "2024-01-01",
    agg: bool = False,
    header: bool = False,
    zipped: bool = True,
    micros: bool = False,
) -> Path:
    name = f"{symbol}-{'aggTrades' if agg else 'trades'}-{period}"
    lines = trade_lines(rows, agg=agg, micros=micros)
    head = (AGG_TRADE_HEADER if agg else TRADE_HEADER) if header else None
    return write_csv_text(directory, name, lines, zipped=zipped, header=head)
