"""Binance archive ingest, checked against files written by an independent helper.

Expected values are computed here from the rows handed to the writer (integer hour maths,
a plain-loop restatement of the quote rule), never from the parser's own helpers.
"""

from __future__ import annotations

import random
import zipfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.unit.marketdata.binance_files import (
    KLINE_HEADER,
    TRADE_HEADER,
    Kline,
    Trade,
    kline_lines,
    trade_lines,
    write_csv_text,
    write_klines,
    write_trades,
    write_zip,
)

from backtestd.domain.marketdata import KLINE_COLUMNS, TICKER_COLUMNS, DataKind, Instrument
from backtestd.marketdata.ingest.binance import (
    ArchiveFormatError,
    ParsedArchive,
    detect_archive,
    parse_archive,
    split_symbol,
)
from backtestd.marketdata.ingest.trade_quotes import quotes_from_trades

HOUR = 3_600_000
JAN1 = 1_704_067_200_000  # 2024-01-01T00:00:00Z in ms


def hour_dt(ms: int) -> datetime:
    return datetime.fromtimestamp(ms // HOUR * HOUR / 1000, tz=UTC)


def klines(start: int, count: int, step: int) -> list[Kline]:
    """Distinct, exactly representable (8-decimal) values derived from the row index."""
    return [
        Kline(start + i * step, 100 + i / 100, 101 + i / 100, 99 + i / 100, 100.5 + i / 100, i / 8)
        for i in range(count)
    ]


def random_trades(count: int, start: int, seed: int, spacing: int = 250) -> list[Trade]:
    rng = random.Random(seed)
    trades, time, price = [], start, 42_000.0
    for i in range(count):
        time += rng.randrange(0, spacing)  # 0 gives same-millisecond trades
        price = round(max(1.0, price + rng.choice((-1, 0, 1)) * rng.randrange(1, 300) / 100), 2)
        qty = rng.randrange(1, 10_000) / 10_000
        trades.append(Trade(1000 + i, price, qty, time, rng.random() < 0.5))
    return trades


def reference_quotes(trades: list[Trade]) -> list[tuple[float, float, float, float]]:
    """The documented rule as a plain loop: hit side = trade, other side = last opposite trade
    (or the trade price with size 0), pulled to the trade price with size 0 if it crosses."""
    last_bid: tuple[float, float] | None = None
    last_ask: tuple[float, float] | None = None
    out = []
    for t in trades:
        if t.is_buyer_maker:
            bid = (t.price, t.qty)
            ask = last_ask if last_ask is not None else (t.price, 0.0)
            if ask[0] < t.price:
                ask = (t.price, 0.0)
            last_bid = bid
        else:
            ask = (t.price, t.qty)
            bid = last_bid if last_bid is not None else (t.price, 0.0)
            if bid[0] > t.price:
                bid = (t.price, 0.0)
            last_ask = ask
        out.append((bid[0], bid[1], ask[0], ask[1]))
    return out


def concat(parsed: ParsedArchive, name: str) -> np.ndarray:
    return np.concatenate([frame.columns[name] for frame in parsed.frames])


def assert_frames_well_formed(parsed: ParsedArchive) -> None:
    hours = [frame.hour for frame in parsed.frames]
    assert hours == sorted(set(hours))
    for frame in parsed.frames:
        ts = frame.columns["ts"]
        assert frame.rows > 0
        assert ts.dtype == np.int64
        assert all(v.dtype == np.float64 for k, v in frame.columns.items() if k != "ts")
        assert all(v.flags.writeable for v in frame.columns.values())
        start = int(frame.hour.timestamp()) * 1000
        assert start <= ts.min()
        assert ts.max() < start + HOUR
        assert np.all(np.diff(ts) >= 0)


# --- file names and symbols -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("BTCUSDT-1s-2024-01-01.zip", ("BTCUSDT", "klines", "1s")),
        ("BTCUSDT-1m-2024-01.zip", ("BTCUSDT", "klines", "1m")),
        ("ETHBTC-12h-2023-11-30.csv", ("ETHBTC", "klines", "12h")),
        ("BTCUSDT-trades-2024-01-01.zip", ("BTCUSDT", "trades", None)),
        ("BNBFDUSD-aggTrades-2025-02.ZIP", ("BNBFDUSD", "aggTrades", None)),
        ("btcusdt-1d-2024-01.csv", ("BTCUSDT", "klines", "1d")),
    ],
)
def test_detect_archive_reads_the_file_name(
    name: str, expected: tuple[str, str, str | None]
) -> None:
    assert detect_archive(Path("/downloads") / name) == expected


@pytest.mark.parametrize(
    "name",
    [
        "BTCUSDT-1M-2024-01.zip",  # monthly klines are not a fixed interval
        "BTCUSDT-1w-2024-01.zip",
        "BTCUSDT-bookTicker-2024-01-01.zip",
        "BTCUSDT-trades-2024-01-01.zip.CHECKSUM",
        "BTCUSDT-trades-2024-13-01.zip",
        "BTCUSDT_trades_2024-01-01.zip",
        "BTCUSDT-trades-2024-01-01.gz",
        "BTCUSDT-trades-2024-01-01 (1).zip",
    ],
)
def test_detect_archive_rejects_unknown_names(name: str) -> None:
    with pytest.raises(ArchiveFormatError, match="BTCUSDT"):
        detect_archive(Path(name))


@pytest.mark.parametrize(
    ("symbol", "base", "quote"),
    [
        ("BTCUSDT", "BTC", "USDT"),
        ("ETHBTC", "ETH", "BTC"),
        ("BTCFDUSD", "BTC", "FDUSD"),
        ("BTCAEUR", "BTC", "AEUR"),  # not BTCA/EUR: longest known quote wins
        ("TUSDUSDT", "TUSD", "USDT"),
        ("BTCTUSD", "BTC", "TUSD"),
        ("BNBETH", "BNB", "ETH"),
        ("BTCTRY", "BTC", "TRY"),
        ("1000SATSUSDC", "1000SATS", "USDC"),
        ("ethusdt", "ETH", "USDT"),
    ],
)
def test_split_symbol_uses_longest_known_quote(symbol: str, base: str, quote: str) -> None:
    assert split_symbol(symbol) == Instrument(base, quote)


@pytest.mark.parametrize("symbol", ["BTCXYZ", "USDT", "", "BTC-USDT"])
def test_split_symbol_refuses_to_guess(symbol: str) -> None:
    with pytest.raises(ValueError, match="symbol"):
        split_symbol(symbol)


# --- klines -----------------------------------------------------------------------------


@pytest.mark.parametrize("zipped", [True, False])
@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("micros", [True, False])
def test_klines_round_trip(tmp_path: Path, zipped: bool, header: bool, micros: bool) -> None:
    # 23:30 the day before to 02:59: a partial first hour, two full hours, a full last one.
    rows = klines(JAN1 - 30 * 60_000, 210, 60_000)
    path = write_klines(tmp_path, rows, interval="1m", header=header, zipped=zipped, micros=micros)

    parsed = parse_archive(path)

    assert parsed.instrument == Instrument("BTC", "USDT")
    assert parsed.kind is DataKind.KLINES
    assert parsed.interval == "1m"
    assert_frames_well_formed(parsed)
    assert all(tuple(frame.columns) == KLINE_COLUMNS for frame in parsed.frames)
    per_hour = Counter(hour_dt(k.open_time) for k in rows)
    assert {frame.hour: frame.rows for frame in parsed.frames} == per_hour
    assert [frame.rows for frame in parsed.frames] == [30, 60, 60, 60]
    assert parsed.rows == len(rows)
    assert concat(parsed, "ts").tolist() == [k.open_time for k in rows]
    for column in ("open", "high", "low", "close", "volume"):
        assert concat(parsed, column).tolist() == [getattr(k, column) for k in rows]


def test_a_full_day_of_1s_klines_becomes_24_full_hours(tmp_path: Path) -> None:
    rows = klines(JAN1, 86_400, 1_000)
    path = write_klines(tmp_path, rows, interval="1s", header=True)

    parsed = parse_archive(path)

    assert parsed.interval == "1s"
    assert [frame.rows for frame in parsed.frames] == [3_600] * 24
    assert [frame.hour for frame in parsed.frames] == [hour_dt(JAN1 + h * HOUR) for h in range(24)]
    for h, frame in enumerate(parsed.frames):
        ts = frame.columns["ts"]
        assert ts[0] == JAN1 + h * HOUR
        assert ts[-1] == JAN1 + (h + 1) * HOUR - 1_000
    assert concat(parsed, "close")[-1] == rows[-1].close


def test_hour_boundaries_are_half_open(tmp_path: Path) -> None:
    # Trades, because kline bars must open on their interval's boundaries.
    times = [JAN1 + HOUR - 1, JAN1 + HOUR, JAN1 + 2 * HOUR - 1, JAN1]
    rows = [Trade(i, 1.5, 1.0, t, False) for i, t in enumerate(times)]
    parsed = parse_archive(write_trades(tmp_path, rows, zipped=False))
    assert [(frame.hour, frame.columns["ts"].tolist()) for frame in parsed.frames] == [
        (hour_dt(JAN1), [JAN1, JAN1 + HOUR - 1]),
        (hour_dt(JAN1 + HOUR), [JAN1 + HOUR, JAN1 + 2 * HOUR - 1]),
    ]


@pytest.mark.parametrize(("interval", "shift"), [("1h", 60_000), ("1m", 1_000), ("1s", 1)])
def test_klines_off_their_interval_boundary_are_refused(
    tmp_path: Path, interval: str, shift: int
) -> None:
    """A shifted bar would straddle two prepared bars and be closed before it ends."""
    step = {"1h": HOUR, "1m": 60_000, "1s": 1_000}[interval]
    rows = klines(JAN1, 3, step)
    rows[2] = Kline(rows[2].open_time + shift, 1.0, 2.0, 0.5, 1.5, 1.0)
    path = write_klines(tmp_path, rows, interval=interval, zipped=False)
    with pytest.raises(ArchiveFormatError, match=f"line 3: open_time .* {interval} interval"):
        parse_archive(path)


def test_unsorted_klines_are_sorted_with_their_values(tmp_path: Path) -> None:
    rows = klines(JAN1, 500, 60_000)
    shuffled = rows[:]
    random.Random(7).shuffle(shuffled)
    parsed = parse_archive(write_klines(tmp_path, shuffled, interval="1m"))
    assert concat(parsed, "ts").tolist() == [k.open_time for k in rows]
    assert concat(parsed, "open").tolist() == [k.open for k in rows]


def test_blank_lines_and_crlf_are_tolerated(tmp_path: Path) -> None:
    rows = klines(JAN1, 4, 60_000)
    lines = [KLINE_HEADER, *kline_lines(rows, "1m")]
    path = tmp_path / "BTCUSDT-1m-2024-01-01.csv"
    path.write_bytes(("\r\n".join(lines[:3]) + "\r\n\r\n" + "\r\n".join(lines[3:])).encode())
    parsed = parse_archive(path)
    assert concat(parsed, "ts").tolist() == [k.open_time for k in rows]
    assert concat(parsed, "volume").tolist() == [k.volume for k in rows]


def test_explicit_instrument_overrides_the_file_name(tmp_path: Path) -> None:
    path = write_klines(tmp_path, klines(JAN1, 3, 60_000), symbol="FOOBAR")
    override = Instrument("FOO", "BAR")
    assert parse_archive(path, override).instrument == override
    with pytest.raises(ArchiveFormatError, match="FOOBAR"):
        parse_archive(path)


# --- trades -----------------------------------------------------------------------------


@pytest.mark.parametrize("agg", [False, True])
@pytest.mark.parametrize(
    ("header", "zipped", "micros"),
    [(False, True, False), (True, False, True), (True, True, True), (False, False, False)],
)
def test_trades_become_ticker_rows(
    tmp_path: Path, agg: bool, header: bool, zipped: bool, micros: bool
) -> None:
    trades = random_trades(3_000, JAN1 - 5 * 60_000, seed=1)
    path = write_trades(tmp_path, trades, agg=agg, header=header, zipped=zipped, micros=micros)

    parsed = parse_archive(path)

    assert parsed.kind is DataKind.TICKERS
    assert parsed.interval is None
    assert parsed.instrument == Instrument("BTC", "USDT")
    assert_frames_well_formed(parsed)
    assert all(tuple(frame.columns) == TICKER_COLUMNS for frame in parsed.frames)
    assert {f.hour: f.rows for f in parsed.frames} == Counter(hour_dt(t.time) for t in trades)
    # µs files are floored to the millisecond they fall in (the helper adds 987 µs).
    assert concat(parsed, "ts").tolist() == [t.time for t in trades]
    assert concat(parsed, "last").tolist() == [t.price for t in trades]
    assert concat(parsed, "volume").tolist() == [t.qty for t in trades]
    quotes = np.column_stack([concat(parsed, c) for c in ("bid", "bidSize", "ask", "askSize")])
    assert quotes.tolist() == [list(q) for q in reference_quotes(trades)]
    assert np.all(concat(parsed, "bid") <= concat(parsed, "ask"))


def test_trade_quote_rule_by_example(tmp_path: Path) -> None:
    # (price, qty, buyer_maker) -> (bid, bidSize, ask, askSize)
    cases = [
        ((100.0, 1.0, False), (100.0, 0.0, 100.0, 1.0)),  # first buy: no bid seen yet
        ((99.0, 2.0, True), (99.0, 2.0, 100.0, 1.0)),  # sell hits bid, ask carried
        ((100.5, 3.0, False), (99.0, 2.0, 100.5, 3.0)),  # buy lifts ask, bid carried
        ((98.0, 4.0, False), (98.0, 0.0, 98.0, 4.0)),  # buy below carried bid: bid pulled down
        ((101.0, 5.0, True), (101.0, 5.0, 101.0, 0.0)),  # sell above carried ask: ask pulled up
        ((97.0, 6.0, True), (97.0, 6.0, 98.0, 4.0)),  # carry is the last buy again, not the pull
    ]
    trades = [Trade(i, p, q, JAN1 + i, m) for i, ((p, q, m), _) in enumerate(cases)]
    parsed = parse_archive(write_trades(tmp_path, trades))
    got = np.column_stack([concat(parsed, c) for c in ("bid", "bidSize", "ask", "askSize")])
    assert got.tolist() == [list(expected) for _, expected in cases]


def test_same_millisecond_trades_keep_file_order_after_sorting(tmp_path: Path) -> None:
    # The file is out of order by time; rows sharing a millisecond must keep id order.
    trades = [
        Trade(1, 10.0, 1.0, JAN1 + 5, False),
        Trade(2, 11.0, 1.0, JAN1 + 5, True),
        Trade(3, 12.0, 1.0, JAN1 + 1, False),
        Trade(4, 13.0, 1.0, JAN1 + 5, False),
        Trade(5, 14.0, 1.0, JAN1 + 1, True),
    ]
    parsed = parse_archive(write_trades(tmp_path, trades))
    assert concat(parsed, "ts").tolist() == [JAN1 + 1] * 2 + [JAN1 + 5] * 3
    assert concat(parsed, "last").tolist() == [12.0, 14.0, 10.0, 11.0, 13.0]


trade_tuples = st.lists(
    st.tuples(
        st.integers(1, 50).map(lambda cents: cents / 4),
        st.integers(1, 1000).map(lambda n: n / 100),
        st.booleans(),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(trade_tuples)
def test_quotes_match_the_loop_and_never_cross(rows: list[tuple[float, float, bool]]) -> None:
    trades = [Trade(i, p, q, JAN1 + i, m) for i, (p, q, m) in enumerate(rows)]
    price = np.array([t.price for t in trades], dtype=np.float64)
    qty = np.array([t.qty for t in trades], dtype=np.float64)
    maker = np.array([t.is_buyer_maker for t in trades], dtype=bool)

    quotes = quotes_from_trades(price, qty, maker)

    got = np.column_stack([quotes[c] for c in ("bid", "bidSize", "ask", "askSize")])
    assert got.reshape(-1, 4).tolist() == [list(q) for q in reference_quotes(trades)]
    assert np.all(quotes["bid"] <= quotes["ask"])
    assert np.all((quotes["bid"] == price) | (quotes["ask"] == price))


# --- malformed input --------------------------------------------------------------------


def kline_text(count: int = 5) -> list[str]:
    return kline_lines(klines(JAN1, count, 60_000), "1m")


NAME = "BTCUSDT-1m-2024-01-01"


def write_lines(tmp_path: Path, lines: list[str], zipped: bool = True) -> Path:
    return write_csv_text(tmp_path, NAME, lines, zipped=zipped)


@pytest.mark.parametrize("zipped", [True, False])
def test_bad_number_names_file_and_line(tmp_path: Path, zipped: bool) -> None:
    lines = [KLINE_HEADER, *kline_text()]
    lines[3] = lines[3].replace(lines[3].split(",")[2], "12x.5", 1)  # high of the third row
    path = write_lines(tmp_path, lines, zipped)
    with pytest.raises(ArchiveFormatError) as caught:
        parse_archive(path)
    message = str(caught.value)
    assert path.name in message
    assert "line 4" in message
    assert "column 'high': '12x.5' is not a valid number" in message


def test_wrong_column_count_names_the_line(tmp_path: Path) -> None:
    lines = kline_text()
    lines[1] = lines[1].rsplit(",", 1)[0]  # drop the trailing 'ignore' field
    with pytest.raises(
        ArchiveFormatError, match=r"BTCUSDT-1m-2024-01-01\.zip.*line 2.*12 columns, got 11"
    ):
        parse_archive(write_lines(tmp_path, lines))


def test_line_numbers_count_blank_lines(tmp_path: Path) -> None:
    lines = kline_text()
    lines[2] = "1704067320000,1,1,1,1,,1704067379999,1,1,1,1,0"  # empty volume, row 3
    lines.insert(1, "")
    with pytest.raises(ArchiveFormatError, match=r"line 4: column 'volume': '' is not"):
        parse_archive(write_lines(tmp_path, lines))


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ("nan", r"line 3: column 'close': nan is not a finite non-negative number"),
        ("-1.5", r"line 3: column 'close': -1.5 is not a finite non-negative number"),
        ("inf", r"line 3: column 'close': inf is not a finite"),
    ],
)
def test_non_finite_or_negative_values_are_rejected(
    tmp_path: Path, bad: str, expected: str
) -> None:
    lines = [KLINE_HEADER, *kline_text()]
    fields = lines[2].split(",")
    fields[4] = bad
    lines[2] = ",".join(fields)
    with pytest.raises(ArchiveFormatError, match=expected):
        parse_archive(write_lines(tmp_path, lines))


def test_bad_trade_flag(tmp_path: Path) -> None:
    lines = trade_lines(random_trades(4, JAN1, seed=3))
    fields = lines[2].split(",")
    fields[5] = "yes"
    lines[2] = ",".join(fields)
    path = write_csv_text(
        tmp_path, "BTCUSDT-trades-2024-01-01", [TRADE_HEADER, *lines], zipped=True
    )
    with pytest.raises(ArchiveFormatError, match=r"line 4: column 'is_buyer_maker'"):
        parse_archive(path)


def test_mixed_timestamp_units_are_rejected(tmp_path: Path) -> None:
    ms = trade_lines(random_trades(3, JAN1, seed=4))
    us = trade_lines(random_trades(3, JAN1, seed=5), micros=True)
    path = write_csv_text(tmp_path, "BTCUSDT-trades-2024-01-01", [*ms, us[0]], zipped=False)
    with pytest.raises(
        ArchiveFormatError, match=r"line 4: column 'time'.*microseconds.*milliseconds"
    ):
        parse_archive(path)


def test_negative_timestamp_is_rejected(tmp_path: Path) -> None:
    lines = kline_text(2)
    lines[1] = "-" + lines[1]
    with pytest.raises(ArchiveFormatError, match=r"line 2: column 'open_time'"):
        parse_archive(write_lines(tmp_path, lines))


def test_header_with_wrong_column_count(tmp_path: Path) -> None:
    lines = [TRADE_HEADER, *kline_text()]  # a trades header on a klines file
    with pytest.raises(ArchiveFormatError, match=r"line 1: header has 7 columns, expected 12"):
        parse_archive(write_lines(tmp_path, lines))


@pytest.mark.parametrize("lines", [[], [KLINE_HEADER]])
def test_no_data_rows(tmp_path: Path, lines: list[str]) -> None:
    with pytest.raises(ArchiveFormatError, match="no data rows"):
        parse_archive(write_lines(tmp_path, lines))


def test_empty_zip(tmp_path: Path) -> None:
    path = write_zip(tmp_path / f"{NAME}.zip", {})
    with pytest.raises(ArchiveFormatError, match=r"exactly one csv file, found 0"):
        parse_archive(path)


def test_zip_with_two_files(tmp_path: Path) -> None:
    text = "\n".join(kline_text()) + "\n"
    path = write_zip(tmp_path / f"{NAME}.zip", {f"{NAME}.csv": text, "README.txt": "hi"})
    with pytest.raises(
        ArchiveFormatError, match=rf"{NAME}\.zip: .*found 2 \({NAME}\.csv, README\.txt\)"
    ):
        parse_archive(path)


def test_zip_member_must_be_csv(tmp_path: Path) -> None:
    path = write_zip(tmp_path / f"{NAME}.zip", {f"{NAME}.txt": "x"})
    with pytest.raises(ArchiveFormatError, match=r"is not a \.csv file"):
        parse_archive(path)


def test_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / f"{NAME}.zip"
    path.write_bytes(b"this is not a zip file")
    with pytest.raises(ArchiveFormatError, match=r"not a readable zip file"):
        parse_archive(path)


def test_corrupt_zip_member(tmp_path: Path) -> None:
    path = tmp_path / f"{NAME}.zip"
    text = "\n".join(kline_text(2_000)) + "\n"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{NAME}.csv", text)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # flip a byte inside the stored member: CRC mismatch
    path.write_bytes(bytes(data))
    with pytest.raises(ArchiveFormatError, match=rf"{NAME}\.zip.*cannot read archive.*CRC"):
        parse_archive(path)


def test_truncated_zip(tmp_path: Path) -> None:
    path = write_lines(tmp_path, kline_text(2_000))
    path.write_bytes(path.read_bytes()[:-200])  # the central directory is at the end
    with pytest.raises(ArchiveFormatError, match=rf"{NAME}\.zip: not a readable zip file"):
        parse_archive(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ArchiveFormatError, match="no such file"):
        parse_archive(tmp_path / f"{NAME}.zip")
