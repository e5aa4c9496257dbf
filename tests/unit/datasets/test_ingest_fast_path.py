"""The integer-epoch CSV fast path gives what the general (text) path gives: the same result,
the same stored bytes, and the same refusal message, for any file, valid or not."""

from __future__ import annotations

import tempfile
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.datasets import csv_blocks, ingest, rows
from backtestd.datasets.ingest import IngestError, IngestResult, ingest_upload
from backtestd.datasets.timestamps import (
    InexactEpoch,
    TimestampError,
    epoch_floats_to_micros,
    to_micros,
)
from backtestd.domain.datasets import TimestampUnit

MAX_BYTES = 64 << 20
NOW = datetime.now(UTC)


class _FrozenClock(datetime):
    """``datetime`` whose ``now`` is :data:`NOW`: a refusal names the latest timestamp accepted
    (a day after now, to the microsecond), and the two paths of one example once read the clock
    a few microseconds apart (a fresh-clone run failed on a year-5138 timestamp)."""

    @classmethod
    def now(cls, tz: object = None) -> datetime:  # type: ignore[override]
        return NOW


T0_S = 1_767_225_600  # 2026-01-01T00:00:00Z
SCALES = {"s": 1, "ms": 1_000, "us": 1_000_000}

# A timestamp cell that breaks the file's rules, or is merely written unusually.
_ODD_STAMPS = st.sampled_from(
    [
        "",
        "NaN",
        "1767225600.5",
        "1767225600000.0",
        "2026-01-01T00:00:00Z",
        "+1767225600000",
        "01767225600",
        " 1767225600000",
        "1767225600000 ",
        "\t1767225600000",
        "0x10",
        "0x6955B900",
        "1767225600000.4",
        "1767225600000.5",
        "\u00a01767225600000",
        "-5",
        "0",
        "99999999999",
        "100000000000",
        "99999999999999",
        "100000000000000",
        "99999999999999999",
        "100000000000000000",
        "9223372036854775807",
        "9223372036854775808",
        "1e12",
        "abc",
        '"1767225600000"',
    ]
)
_ODD_VALUES = st.sampled_from(["", "nan", "NaN", "inf", "-inf", "abc", "1e400", '"1.5"', "2"])


@st.composite
def _csv_files(draw: st.DrawFn) -> bytes:
    unit = draw(st.sampled_from(sorted(SCALES)))
    rows = draw(st.integers(1, 60))
    steps = draw(st.lists(st.integers(-2, 120), min_size=rows, max_size=rows))
    start = T0_S * SCALES[unit]
    stamps = [str(start + int(v)) for v in np.cumsum(steps) * SCALES[unit]]
    # Full reprs (often more digits than the compiled parser takes: arrow parses those
    # blocks) and prices rounded to a few decimals (the compiled parser's plain shape).
    digits = draw(st.sampled_from([None, 0, 2, 3]))
    values = draw(st.lists(st.floats(1, 1e6), min_size=rows, max_size=rows))
    closes = [repr(v if digits is None else round(v, digits)) for v in values]
    for _ in range(draw(st.integers(0, 2))):  # a few odd cells anywhere but in the header
        row = draw(st.integers(0, rows - 1))
        if draw(st.booleans()):
            stamps[row] = draw(_ODD_STAMPS)
        else:
            closes[row] = draw(_ODD_VALUES)
    header = draw(st.sampled_from(["timestamp,close", '"timestamp","close"', "close,timestamp"]))
    extra = draw(st.sampled_from(["", "a,b", "1,2,3"]))  # a row with a wrong field count
    lines = [header]
    for stamp, close in zip(stamps, closes, strict=True):
        lines.append(f"{close},{stamp}" if header.startswith("close") else f"{stamp},{close}")
    if extra:
        lines.insert(draw(st.integers(1, len(lines))), extra)
    return ("\n".join(lines) + "\n").encode()


def _outcome(data: bytes, fast: bool, block: int) -> tuple[str, IngestResult | None, bytes]:
    """The refusal message, or the result (path-free) and the stored bytes."""
    with tempfile.TemporaryDirectory() as directory, pytest.MonkeyPatch.context() as patch:
        patch.setattr(ingest, "CSV_BLOCK_BYTES", block)
        patch.setattr(rows, "datetime", _FrozenClock)
        if not fast:
            patch.setattr(ingest, "_INTEGER", ingest.re.compile(r"(?!)"))  # never matches
        upload = Path(directory) / "upload"
        upload.write_bytes(data)
        try:
            result = ingest_upload(upload, Path(directory), MAX_BYTES)
        except IngestError as exc:
            return str(exc), None, b""
        return "", replace(result, path=Path("version")), result.path.read_bytes()


@given(data=_csv_files(), block=st.sampled_from([256, 1 << 20]))
@settings(max_examples=300, deadline=None)
def test_fast_and_general_paths_give_the_same_result_bytes_and_message(
    data: bytes, block: int
) -> None:
    assert _outcome(data, fast=True, block=block) == _outcome(data, fast=False, block=block)


def test_integer_epoch_file_takes_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def text_path(*_: object) -> None:
        raise AssertionError("the general path read the timestamps")

    monkeypatch.setattr(ingest, "to_micros", text_path)
    monkeypatch.setattr(ingest, "CSV_BLOCK_BYTES", 4096)
    rows = [f"{(T0_S + i) * 1000},{100 + i % 7}.25" for i in range(3_000)]
    upload = tmp_path / "upload"
    upload.write_bytes(("timestamp,close\n" + "\n".join(rows) + "\n").encode())
    result = ingest_upload(upload, tmp_path, MAX_BYTES)
    assert (result.rows, result.cadence, result.timestamp_unit) == (
        3_000,
        "1s",
        TimestampUnit.MILLIS,
    )


def test_plain_file_is_parsed_by_the_compiled_parser_into_the_general_paths_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bench's shape (epoch ms, OHLCV in cents, CRLF here) never reaches arrow's CSV
    parser on the fast path, and its stored file is the general path's, byte for byte."""
    rng = np.random.default_rng(7)
    prices = np.round(30_000 + np.cumsum(rng.normal(0, 3, 5_000)), 2)
    rows = [
        f"{(T0_S + i) * 1000},{p},{p + 1.25},{p - 0.5},{p},{rng.exponential(2):.3f}"
        for i, p in enumerate(prices)
    ]
    data = ("timestamp,open,high,low,close,volume\r\n" + "\r\n".join(rows) + "\r\n").encode()
    general = _outcome(data, fast=False, block=8192)

    compiled = csv_blocks._compiled_batch
    blocks: list[int] = []

    def compiled_only(block: bytes, plan: object) -> pa.RecordBatch:
        batch = compiled(block, plan)  # type: ignore[arg-type]
        assert batch is not None, "arrow would parse a block the compiled parser should take"
        blocks.append(batch.num_rows)
        return batch

    def no_streaming(*_: object, **__: object) -> None:
        raise AssertionError("the fast path gave up: the streaming reader read the file")

    monkeypatch.setattr(csv_blocks, "_compiled_batch", compiled_only)
    monkeypatch.setattr(ingest.pacsv, "open_csv", no_streaming)
    fast = _outcome(data, fast=True, block=8192)
    assert fast == general
    assert sum(blocks) == 5_000
    assert len(blocks) > 10
    assert fast[1] is not None
    assert fast[1].rows == 5_000


def test_fast_path_refusal_is_the_general_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [f"{(T0_S + i) * 1000},1.5" for i in range(10)]
    rows[6] = f"{T0_S + 6},1.5"  # seconds in a milliseconds file
    upload = tmp_path / "upload"
    upload.write_bytes(("timestamp,close\n" + "\n".join(rows) + "\n").encode())
    with pytest.raises(
        IngestError, match=r"row 7: timestamp 1767225606 is not in epoch milliseconds"
    ):
        ingest_upload(upload, tmp_path, MAX_BYTES)


_UNITS = st.sampled_from([TimestampUnit.SECONDS, TimestampUnit.MILLIS, TimestampUnit.MICROS])
_EDGES = [0, 10**11, 10**14, 10**17, 2**53, 2**62]
_INTEGERS = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from(_EDGES).flatmap(lambda e: st.integers(e - 3000, e + 3000)),
    st.sampled_from(_EDGES).flatmap(lambda e: st.integers(-e - 3000, -e + 3000)),
)
_TEXTS = st.one_of(
    _INTEGERS.map(str),
    _INTEGERS.map(lambda v: f" {v}\t"),
    _INTEGERS.map(lambda v: f"+{v}" if v >= 0 else str(v)),
    _INTEGERS.map(lambda v: f"{v}.0"),
    st.floats(-2e17, 2e17, allow_nan=False).map(repr),
    st.sampled_from(["1767225600.25", "1767225600123.5", "1.7672256e9", "inf", "-inf"]),
)


@given(unit=_UNITS, texts=st.lists(_TEXTS, min_size=1, max_size=40))
@settings(max_examples=500, deadline=None)
def test_float_column_conversion_equals_the_text_conversion_whenever_it_answers(
    unit: TimestampUnit, texts: list[str]
) -> None:
    """The fast path's column is the text parsed as float64 by arrow (its CSV reader trims
    spaces and tabs around numbers); where the fast conversion returns, the text path
    returns the same microseconds."""
    strings = pa.array(texts, type=pa.string())
    floats = pc.cast(pc.utf8_trim(strings, characters=" \t"), pa.float64())
    try:
        fast = epoch_floats_to_micros(floats, unit, 5)
    except TimestampError:  # InexactEpoch or a refusal: the fast path hands over to text
        return
    assert fast.tolist() == to_micros(strings, unit, 5).tolist()


def test_epoch_beyond_float_precision_hands_over_to_the_text_path() -> None:
    floats = pa.array([float(2**53 + 2)], type=pa.float64())
    with pytest.raises(InexactEpoch):
        epoch_floats_to_micros(floats, TimestampUnit.MICROS, 1)


def test_fast_path_refused_mid_file_leaves_no_parse_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast path's thread pool is shut down before the general path reads the file."""
    monkeypatch.setattr(ingest, "CSV_BLOCK_BYTES", 4096)
    rows = [f"{(T0_S + i) * 1000},1.5" for i in range(20_000)]
    rows[10_000] = f"{(T0_S + 9_999) * 1000},1.5"  # a repeated timestamp, mid-file
    upload = tmp_path / "upload"
    upload.write_bytes(("timestamp,close\n" + "\n".join(rows) + "\n").encode())
    with pytest.raises(IngestError, match=r"row 10,001: timestamp .* is not after the previous"):
        ingest_upload(upload, tmp_path, MAX_BYTES)
    assert not [t for t in threading.enumerate() if t.name.startswith("csv-parse")]
