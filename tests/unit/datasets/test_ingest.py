"""ingest_upload as a user sees it: what a valid file reports and stores, and why a bad one fails.

Every upload is written to ``tmp_path`` as bytes, the way it arrives from a PUT (no file name, no
content type); the stored version is read back with ``read_version``, as prepare reads it.
"""

from __future__ import annotations

import gzip
import io
import random
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from backtestd.datasets import ingest
from backtestd.datasets.formats import UploadFormat, detect
from backtestd.datasets.ingest import IngestError, IngestResult, ingest_upload
from backtestd.datasets.version_file import read_version
from backtestd.domain.datasets import DataFormat, TimestampUnit

MAX_BYTES = 64 << 20
T0 = datetime(2026, 1, 1, tzinfo=UTC)
T0_S = int(T0.timestamp())
US = 1_000_000

# Ten 1-minute bars with minutes 4, 5 and 6 missing: one gap, three steps missing in it.
MINUTES = (0, 1, 2, 3, 7, 8, 9, 10, 11, 12)
TS_US = np.array([(T0_S + m * 60) * US for m in MINUTES], dtype=np.int64)
CLOSE = np.array([100.5, 101.25, 99.75, 100.0, 102.125, 103.0, 102.5, 101.0, 100.25, 104.5])
OPEN = CLOSE - 0.5
VOLUME = np.arange(1, len(MINUTES) + 1, dtype=np.float64) * 1.5


def _iso(ts_us: int) -> str:
    return (T0 + timedelta(microseconds=ts_us - T0_S * US)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _csv(stamps: list[str], close: npt.NDArray[np.float64] | list[str]) -> bytes:
    lines = ["timestamp,close", *(f"{t},{c}" for t, c in zip(stamps, close, strict=True))]
    return ("\n".join(lines) + "\n").encode()


def _minute_csv() -> bytes:
    lines = ["timestamp,open,close,volume"]
    for t, o, c, v in zip(TS_US, OPEN, CLOSE, VOLUME, strict=True):
        lines.append(f"{_iso(int(t))},{float(o)!r},{float(c)!r},{float(v)!r}")
    return ("\n".join(lines) + "\n").encode()


def _epoch_csv(divisor: int) -> bytes:
    return _csv([str(int(t) // divisor) for t in TS_US], CLOSE)


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _parquet(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _minute_parquet() -> bytes:
    return _parquet(
        pa.table({"timestamp": pa.array(TS_US // 1000), "close": CLOSE, "volume": VOLUME})
    )


def _ingest(tmp_path: Path, data: bytes, max_bytes: int = MAX_BYTES) -> IngestResult:
    work = tmp_path / "work"
    work.mkdir(parents=True, exist_ok=True)
    upload = tmp_path / "upload"
    upload.write_bytes(data)
    return ingest_upload(upload, work, max_bytes)


def _refused(tmp_path: Path, data: bytes, max_bytes: int = MAX_BYTES) -> str:
    with pytest.raises(IngestError) as info:
        _ingest(tmp_path, data, max_bytes)
    return str(info.value)


def _assert_minute_report(result: IngestResult) -> None:
    assert result.rows == len(MINUTES)
    assert result.cadence == "1m"
    assert result.gaps == 1
    assert result.largest_gap_steps == 3
    assert result.data_from == T0
    assert result.data_to == T0 + timedelta(minutes=12)


# -- valid uploads --------------------------------------------------------------------------


def test_iso_minute_csv_reports_rows_cadence_gap_and_range(tmp_path: Path) -> None:
    result = _ingest(tmp_path, _minute_csv())

    _assert_minute_report(result)
    assert result.timestamp_unit is TimestampUnit.ISO
    assert result.data_format is DataFormat.LASTRA
    assert result.columns == ("timestamp", "close", "open", "volume")
    assert result.bytes == result.path.stat().st_size


def test_iso_minute_csv_is_stored_as_lastra_that_reads_back_identical(tmp_path: Path) -> None:
    result = _ingest(tmp_path, _minute_csv())

    assert detect(result.path.read_bytes()[:512]) is UploadFormat.LASTRA
    stored = read_version(result.path, result.data_format)
    np.testing.assert_array_equal(stored.ts_us, TS_US)
    assert sorted(stored.columns) == ["close", "open", "volume"]
    np.testing.assert_array_equal(stored.columns["close"], CLOSE)
    np.testing.assert_array_equal(stored.columns["open"], OPEN)
    np.testing.assert_array_equal(stored.columns["volume"], VOLUME)


@pytest.mark.parametrize(
    ("divisor", "unit"),
    [
        (US, TimestampUnit.SECONDS),
        (1_000, TimestampUnit.MILLIS),
        (1, TimestampUnit.MICROS),
    ],
)
def test_epoch_unit_is_detected_from_magnitude(
    tmp_path: Path, divisor: int, unit: TimestampUnit
) -> None:
    result = _ingest(tmp_path, _epoch_csv(divisor))

    assert result.timestamp_unit is unit
    _assert_minute_report(result)
    stored = read_version(result.path, result.data_format)
    np.testing.assert_array_equal(stored.ts_us, TS_US)
    np.testing.assert_array_equal(stored.columns["close"], CLOSE)


def test_parquet_upload_is_kept_as_parquet_and_reads_back(tmp_path: Path) -> None:
    data = _minute_parquet()
    result = _ingest(tmp_path, data)

    assert result.data_format is DataFormat.PARQUET
    assert result.path.read_bytes() == data
    assert result.bytes == len(data)
    assert result.timestamp_unit is TimestampUnit.MILLIS
    assert result.columns == ("timestamp", "close", "volume")
    _assert_minute_report(result)
    stored = read_version(result.path, result.data_format)
    np.testing.assert_array_equal(stored.ts_us, TS_US)
    np.testing.assert_array_equal(stored.columns["close"], CLOSE)
    np.testing.assert_array_equal(stored.columns["volume"], VOLUME)


def test_lastra_from_ingest_uploaded_again_gives_the_same_version(tmp_path: Path) -> None:
    first = _ingest(tmp_path / "first", _minute_csv())
    lastra_bytes = first.path.read_bytes()
    again = _ingest(tmp_path / "again", lastra_bytes)

    assert again.data_format is DataFormat.LASTRA
    assert again.path.read_bytes() == lastra_bytes  # stored as it was PUT
    assert again.timestamp_unit is TimestampUnit.MICROS  # the stored file's own unit
    for field in ("rows", "cadence", "gaps", "largest_gap_steps", "data_from", "data_to"):
        assert getattr(again, field) == getattr(first, field), field
    assert again.columns == first.columns
    before = read_version(first.path, first.data_format)
    after = read_version(again.path, again.data_format)
    np.testing.assert_array_equal(after.ts_us, before.ts_us)
    for name, column in before.columns.items():
        np.testing.assert_array_equal(after.columns[name], column)


def test_gzipped_csv_is_unwrapped_and_ingested(tmp_path: Path) -> None:
    result = _ingest(tmp_path, gzip.compress(_minute_csv()))

    _assert_minute_report(result)
    assert result.data_format is DataFormat.LASTRA
    stored = read_version(result.path, result.data_format)
    np.testing.assert_array_equal(stored.columns["close"], CLOSE)


def test_zip_with_one_member_is_unwrapped_and_ingested(tmp_path: Path) -> None:
    result = _ingest(tmp_path, _zip({"bars.csv": _minute_csv()}))

    _assert_minute_report(result)
    stored = read_version(result.path, result.data_format)
    np.testing.assert_array_equal(stored.ts_us, TS_US)


def test_irregular_intervals_are_rt_with_no_gaps(tmp_path: Path) -> None:
    steps_us = np.array([0, 1_300_000, 200_000, 7_100_000, 3_300_000, 900_000, 11_000_000])
    stamps = T0_S * US + np.cumsum(steps_us)
    result = _ingest(tmp_path, _csv([str(t) for t in stamps], np.arange(1.0, 8.0)))

    assert (result.cadence, result.gaps, result.largest_gap_steps) == ("rt", 0, 0)
    assert result.rows == 7
    assert result.timestamp_unit is TimestampUnit.MICROS


# -- refused uploads ------------------------------------------------------------------------


def test_missing_close_column_is_named(tmp_path: Path) -> None:
    message = _refused(tmp_path, b"timestamp,open\n1767225600,1.0\n")
    assert "'close'" in message
    assert "found timestamp, open" in message


def test_close_in_the_wrong_case_is_pointed_out(tmp_path: Path) -> None:
    message = _refused(tmp_path, b"timestamp,Close\n1767225600,1.0\n")
    assert "'close'" in message
    assert "case-sensitive" in message


def test_missing_timestamp_column_is_named(tmp_path: Path) -> None:
    message = _refused(tmp_path, b"time,close\n1767225600,1.0\n")
    assert "'timestamp'" in message


def test_unsorted_rows_name_the_first_row_out_of_order(tmp_path: Path) -> None:
    stamps = [str(T0_S + s) for s in (0, 60, 120, 100, 180)]
    message = _refused(tmp_path, _csv(stamps, CLOSE[:5]))
    assert "row 4" in message
    assert "sorted" in message


def test_duplicate_timestamp_names_the_repeated_row(tmp_path: Path) -> None:
    stamps = [str(T0_S + s) for s in (0, 60, 60, 120)]
    message = _refused(tmp_path, _csv(stamps, CLOSE[:4]))
    assert "row 3" in message
    assert "duplicates" in message


def test_row_numbers_count_across_csv_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ingest, "CSV_BLOCK_BYTES", 4096)  # many blocks from a small file
    stamps = [str(T0_S + 60 * i) for i in range(2_000)]
    stamps[1_500] = stamps[1_499]
    message = _refused(tmp_path, _csv(stamps, np.ones(2_000)))
    assert "row 1,501" in message


def test_seconds_then_milliseconds_is_refused_at_the_changing_row(tmp_path: Path) -> None:
    stamps = [str(T0_S), str(T0_S + 60), str((T0_S + 120) * 1000)]
    message = _refused(tmp_path, _csv(stamps, CLOSE[:3]))
    assert "row 3" in message
    assert "epoch seconds" in message
    assert "one unit" in message


def test_iso_then_epoch_is_refused_at_the_changing_row(tmp_path: Path) -> None:
    stamps = [_iso(int(TS_US[0])), _iso(int(TS_US[1])), str(T0_S + 120)]
    message = _refused(tmp_path, _csv(stamps, CLOSE[:3]))
    assert "row 3" in message
    assert "ISO-8601" in message


@pytest.mark.parametrize("bad", ["NaN", "nan", ""])
def test_nan_or_empty_value_is_refused_with_row_and_column(tmp_path: Path, bad: str) -> None:
    stamps = [str(T0_S + 60 * i) for i in range(3)]
    message = _refused(tmp_path, _csv(stamps, ["1.0", bad, "2.0"]))
    assert "row 2" in message
    assert "'close'" in message
    assert "finite" in message


@pytest.mark.parametrize("bad", ["inf", "-inf"])
def test_infinite_value_is_refused_with_row_column_and_value(tmp_path: Path, bad: str) -> None:
    stamps = [str(T0_S + 60 * i) for i in range(3)]
    message = _refused(tmp_path, _csv(stamps, ["1.0", "2.0", bad]))
    assert f"row 3: column 'close' is {bad};" in message
    assert "finite" in message


def test_nan_in_parquet_is_refused_with_row_and_column(tmp_path: Path) -> None:
    close = CLOSE.copy()
    close[6] = np.nan
    message = _refused(tmp_path, _parquet(pa.table({"timestamp": TS_US // 1000, "close": close})))
    assert "row 7" in message
    assert "'close'" in message


def test_non_numeric_value_is_refused_with_row_column_and_text(tmp_path: Path) -> None:
    stamps = [str(T0_S + 60 * i) for i in range(4)]
    message = _refused(tmp_path, _csv(stamps, ["1.0", "2.0", "abc", "3.0"]))
    assert "row 3" in message
    assert "'close'" in message
    assert "'abc'" in message
    assert "not a number" in message


def test_empty_file_is_refused(tmp_path: Path) -> None:
    assert "empty" in _refused(tmp_path, b"")


def test_header_only_csv_is_refused_as_having_no_rows(tmp_path: Path) -> None:
    message = _refused(tmp_path, b"timestamp,close\n")
    assert "no data rows" in message


def test_zip_with_two_members_is_refused_naming_them(tmp_path: Path) -> None:
    csv = _minute_csv()
    message = _refused(tmp_path, _zip({"a.csv": csv, "b.csv": csv}))
    assert "exactly one file" in message
    assert "holds 2" in message
    assert "a.csv" in message


def test_gzip_bomb_is_refused_by_decompressed_size_without_filling_the_disk(
    tmp_path: Path,
) -> None:
    max_bytes = 1 << 20
    bomb = gzip.compress(b"0" * (16 << 20))
    assert len(bomb) < max_bytes  # the compressed upload itself is within the cap

    message = _refused(tmp_path, bomb, max_bytes)
    assert "decompresses to more than 1,048,576 bytes" in message
    written = sum(p.stat().st_size for p in (tmp_path / "work").rglob("*") if p.is_file())
    assert written <= max_bytes


def test_truncated_parquet_is_refused_as_damaged(tmp_path: Path) -> None:
    data = _minute_parquet()
    message = _refused(tmp_path, data[: len(data) // 2])
    assert "parquet" in message
    assert "damaged or truncated" in message


def test_random_binary_is_refused_as_unknown_format(tmp_path: Path) -> None:
    data = random.Random(0).randbytes(4096)
    message = _refused(tmp_path, data)
    assert "binary but not gzip, zip, parquet or lastra" in message


def test_parquet_int_timestamp_beyond_float_precision_is_refused_at_its_row(
    tmp_path: Path,
) -> None:
    stamps = pa.array([T0_S * 1000, (T0_S + 60) * 1000, 2**60], type=pa.int64())
    table = pa.table({"timestamp": stamps, "close": CLOSE[:3]})
    message = _refused(tmp_path, _parquet(table))
    assert "row 3" in message
    assert "epoch milliseconds" in message


def test_epoch_with_spaces_or_tabs_around_reads_as_the_number(tmp_path: Path) -> None:
    """As arrow's CSV reader reads the value columns (it used to crash the job)."""
    stamps = [str(T0_S), f"{T0_S + 60}\t", f" {T0_S + 120}"]
    result = _ingest(tmp_path, _csv(stamps, CLOSE[:3]))
    stored = read_version(result.path, result.data_format)
    assert stored.ts_us.tolist() == [(T0_S + 60 * i) * US for i in range(3)]


def test_hexadecimal_epoch_is_refused_at_its_row(tmp_path: Path) -> None:
    stamps = [str(T0_S), str(T0_S + 60), hex(T0_S + 120)]
    message = _refused(tmp_path, _csv(stamps, CLOSE[:3]))
    assert "row 3" in message
    assert "'0x" in message


@pytest.mark.parametrize(
    ("header", "row", "fragment"),
    [
        ("timestamp,close", "2026-01-01T00:02:00Z,0", "column 'close' is 0.0; prices must be"),
        ("timestamp,close", "2026-01-01T00:02:00Z,-3.5", "column 'close' is -3.5; prices must be"),
        (
            "timestamp,close,volume",
            "2026-01-01T00:02:00Z,10,-1",
            "column 'volume' is -1.0; volumes and sizes cannot be negative",
        ),
        ("timestamp,close", "2999-01-01T00:00:00Z,10", "is in the future"),
    ],
)
def test_a_price_of_zero_or_a_timestamp_far_ahead_is_refused_at_its_row(
    tmp_path: Path, header: str, row: str, fragment: str
) -> None:
    """Once, such rows ingested as ready and every later prepare failed "internal error"."""
    columns = header.count(",")
    first = "2026-01-01T00:00:00Z," + ",".join(["10"] * columns)
    second = "2026-01-01T00:01:00Z," + ",".join(["10"] * columns)
    data = "\n".join([header, first, second, row]).encode() + b"\n"
    message = _refused(tmp_path, data)
    assert message.startswith("row 3: "), message  # the third data row
    assert fragment in message


def test_a_timestamp_before_1970_is_refused(tmp_path: Path) -> None:
    ts_us = np.array([-120_000_000, -60_000_000], dtype=np.int64)
    with pytest.raises(IngestError, match="before 1970"):
        ingest.build_version(ts_us, {"close": np.array([1.0, 2.0])}, tmp_path / "v.lastra")


def test_a_field_of_megabytes_is_refused_naming_its_row(tmp_path: Path) -> None:
    """Once "internal error: field larger than field limit (131072)"."""
    huge = "a" * (1 << 20)
    data = f"timestamp,close\n2026-01-01T00:00:00Z,1\n2026-01-01T00:01:00Z,{huge}\n".encode()
    message = _refused(tmp_path, data)
    assert message.startswith("row 2: "), message[:200]
    assert "longer than 131,072 characters" in message


def test_a_header_field_of_megabytes_is_refused(tmp_path: Path) -> None:
    data = ("timestamp,close" + "x" * (1 << 20) + "\n2026-01-01T00:00:00Z,1\n").encode()
    assert "the CSV header cannot be read" in _refused(tmp_path, data)


def test_a_zip_listing_thousands_of_folders_is_refused_before_its_directory_is_read(
    tmp_path: Path,
) -> None:
    """One file and 20,000 directory entries once passed the one-member rule (only files were
    counted) after parsing the whole directory."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for n in range(20_000):
            archive.writestr(f"d{n}/", "")
        archive.writestr("data.csv", _minute_csv())
    message = _refused(tmp_path, buffer.getvalue())
    assert "the zip file lists 20,001 entries" in message


def test_a_zip_with_its_file_in_a_folder_is_still_accepted(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("export/", "")
        archive.writestr("export/data.csv", _minute_csv())
    _assert_minute_report(_ingest(tmp_path, buffer.getvalue()))


def test_a_parquet_declaring_more_rows_than_allowed_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    """A repeated row compresses to almost nothing: the declared count is what counts."""
    rows = 200_000
    table = pa.table(
        {
            "timestamp": pa.array(np.arange(rows, dtype=np.int64) * 1000 + T0_S * 1000),
            "close": pa.array(np.full(rows, 100.0)),
        }
    )
    data = _parquet(table)
    upload = tmp_path / "upload.bin"
    upload.write_bytes(data)
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(IngestError, match=r"holds 200,000 rows or more, over .* of 150,000"):
        ingest_upload(upload, work, MAX_BYTES, max_rows=150_000)
    assert ingest_upload(upload, work, MAX_BYTES, max_rows=rows).rows == rows


def test_a_csv_with_more_rows_than_allowed_is_refused(tmp_path: Path) -> None:
    upload = tmp_path / "upload.bin"
    upload.write_bytes(_minute_csv())  # ten rows
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(IngestError, match="maxDatasetRows of 9"):
        ingest_upload(upload, work, MAX_BYTES, max_rows=9)
    assert ingest_upload(upload, work, MAX_BYTES, max_rows=10).rows == 10
