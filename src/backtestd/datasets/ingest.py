"""Ingest of one uploaded file: detect, unwrap, check every row, and produce the version file.

The format comes from the bytes (never a name); a CSV is read with pyarrow's streaming reader in
blocks and converted to lastra; parquet and lastra are checked batch by batch and kept as they
are. Every refusal is an :class:`IngestError` whose message names the row or column at fault.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from lastra import DataType, LastraReader

from backtestd.datasets.csv_blocks import default_workers, prepared_batches
from backtestd.datasets.formats import FormatError, UploadFormat
from backtestd.datasets.rows import (
    F64,
    I64,
    RowChecker,
    RowError,
    micros_to_datetime,
    too_many_rows,
)
from backtestd.datasets.timestamps import (
    TimestampError,
    arrow_unit,
    detect_unit,
    epoch_floats_to_micros,
    row_label,
    to_micros,
)
from backtestd.datasets.unpack import unpack
from backtestd.datasets.version_file import (
    ROW_GROUP,
    TIMESTAMP_NAMES,
    LastraVersionWriter,
    lastra_timestamp_column,
    lastra_unit,
    value_columns,
)
from backtestd.domain.datasets import OPTIONAL_COLUMNS, DataFormat, TimestampUnit

CSV_BLOCK_BYTES = 2 << 20
"""Arrow parses this much CSV per batch. Its streaming reader parses many blocks ahead: with
8 MB blocks a 10-million-row file peaked at 497 MB of RSS, with 2 MB at 258 MB, and parsing
took no more CPU time (less: the blocks stay in cache)."""
_INTEGER = re.compile(r"[+-]?[0-9]+")


class IngestError(ValueError):
    """The upload cannot become a version; the message is the dataset's ``error``."""


@dataclass(frozen=True)
class IngestResult:
    data_format: DataFormat
    path: Path
    bytes: int
    rows: int
    cadence: str
    gaps: int
    largest_gap_steps: int
    timestamp_unit: TimestampUnit
    data_from: datetime
    data_to: datetime
    columns: tuple[str, ...]


def ingest_upload(
    upload: Path, work_dir: Path, max_bytes: int, max_rows: int | None = None
) -> IngestResult:
    """Check ``upload`` and produce the file to store; ``max_bytes`` caps decompression and
    ``max_rows`` the rows a version may hold (a parquet file says its count up front, so a
    file of millions of identical rows that compresses to almost nothing stops at once)."""
    try:
        plain, kind = unpack(upload, work_dir, max_bytes)
        if kind is UploadFormat.CSV:
            return _ingest_csv(plain, work_dir / "version.lastra", max_rows)
        if kind is UploadFormat.PARQUET:
            return _ingest_parquet(plain, max_rows)
        return _ingest_lastra(plain, max_rows)
    except (FormatError, TimestampError, RowError) as exc:
        raise IngestError(str(exc)) from None


def _result(
    checker: RowChecker,
    data_format: DataFormat,
    path: Path,
    unit: TimestampUnit,
    columns: tuple[str, ...],
) -> IngestResult:
    if checker.rows == 0 or checker.first_us is None or checker.last_us is None:
        raise IngestError("the file has no data rows; upload at least one row")
    report = checker.cadence()
    return IngestResult(
        data_format=data_format,
        path=path,
        bytes=path.stat().st_size,
        rows=checker.rows,
        cadence=report.cadence,
        gaps=report.gaps,
        largest_gap_steps=report.largest_gap_steps,
        timestamp_unit=unit,
        data_from=micros_to_datetime(checker.first_us),
        data_to=micros_to_datetime(checker.last_us),
        columns=("timestamp", *columns),
    )


def _require_columns(names: list[str], what: str) -> None:
    lowered = {n.lower(): n for n in names}
    for required in ("timestamp", "close"):
        if required in names or (required == "timestamp" and "ts" in names and what != "CSV"):
            continue
        hint = ""
        if required in lowered:
            hint = f" (found {lowered[required]!r}: names are case-sensitive)"
        raise IngestError(
            f"the {what} has no {required!r} column{hint}; required columns are timestamp and "
            f"close, optional {', '.join(OPTIONAL_COLUMNS)}; found {', '.join(names) or 'none'}"
        )


def _values(batch: pa.RecordBatch, columns: tuple[str, ...], first_row: int) -> dict[str, F64]:
    out: dict[str, F64] = {}
    for name in columns:
        column = batch.column(batch.schema.get_field_index(name))
        if column.null_count:
            index = int(pc.index(pc.is_null(column), True).as_py())
            raise RowError(
                f"{row_label(first_row + index)}: column {name!r} is empty or NaN; every value "
                "must be a finite number"
            )
        if pa.types.is_float64(column.type):  # as the CSV reader parses them: nothing to cast
            out[name] = np.asarray(column.to_numpy(zero_copy_only=True), dtype=np.float64)
            continue
        try:
            numbers = pc.cast(column, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise RowError(f"column {name!r} is not numeric ({column.type})") from None
        out[name] = np.asarray(numbers.to_numpy(zero_copy_only=False), dtype=np.float64)
    return out


# -- CSV ------------------------------------------------------------------------------------


def _csv_head(path: Path) -> tuple[list[str], str | None]:
    """The header's names and the first data row's timestamp text (None without one)."""
    with path.open("r", encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        try:
            header = [name.strip() for name in next(reader, [])]
        except csv.Error as exc:
            raise IngestError(f"the CSV header cannot be read: {_csv_reason(exc)}") from None
        try:
            first = next(reader, None)
        except csv.Error:  # e.g. a field over the csv module's size limit: arrow will say
            first = None
    if first is None or "timestamp" not in header or len(first) != len(header):
        return header, None
    return header, first[header.index("timestamp")]


class _NotIntegerEpochs(Exception):
    """The integer-epoch fast path met something it does not read; use the general path."""


def _csv_reason(exc: csv.Error) -> str:
    """The csv module's complaint in a user's words (its field limit above all)."""
    if "field larger than field limit" in str(exc):
        return (
            f"a field is longer than {csv.field_size_limit():,} characters, which no "
            "timestamp or number is; check the file's delimiter and quotes"
        )
    return f"the CSV is malformed ({exc})"


def _locate_csv_problem(path: Path, header: list[str], message: str) -> str:
    """Turn an arrow conversion error into one naming the row and column (error path only)."""
    numeric = [i for i, name in enumerate(header) if name in ("close", *OPTIONAL_COLUMNS)]
    with path.open("r", encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        next(reader, None)
        row_number = 0
        while True:
            row_number += 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                return f"{row_label(row_number)}: {_csv_reason(exc)}"
            if len(row) != len(header):
                return (
                    f"{row_label(row_number)}: has {len(row)} fields, the header has {len(header)}"
                )
            for index in numeric:
                text = row[index].strip()
                if text == "":
                    continue
                try:
                    float(text)
                except ValueError:
                    where = f"{row_label(row_number)}: column {header[index]!r}"
                    return f"{where} is {text!r}, not a number"
    return f"the CSV could not be read: {message}"


def _ingest_csv(path: Path, target: Path, max_rows: int | None) -> IngestResult:
    header, first = _csv_head(path)
    _require_columns(header, "CSV")
    if len(set(header)) != len(header):
        raise IngestError(f"the CSV header names a column twice: {', '.join(header)}")
    columns = value_columns(header)
    if first is not None and _INTEGER.fullmatch(first.strip()):
        try:
            return _convert_csv(
                path, target, header, columns, max_rows=max_rows, integer_epochs=True
            )
        except Exception:  # the general path reads it, or refuses it in its own words
            pass
    return _convert_csv(path, target, header, columns, max_rows=max_rows, integer_epochs=False)


EpochsAhead = tuple[TimestampUnit, I64] | None
"""A batch's timestamps in microseconds and the unit they were read in, converted by the parse
worker; None when the worker left them to the caller."""


def _epochs_ahead(batch: pa.RecordBatch) -> EpochsAhead:
    """On the parse worker: the batch's epoch timestamps in microseconds, in the unit of its own
    first value. Only the file's first row sets the unit, so the caller uses this only when the
    units agree; then the conversion is the one it would do itself (the row numbers it needs
    only name a row in a refusal, and a refusal is always left to the caller). Anything
    unusual returns None for the caller to convert and, if need be, refuse with its message."""
    column = batch.column(0)
    if batch.num_rows == 0 or column.null_count:
        return None
    try:
        unit = detect_unit(column[0].as_py())
        return unit, epoch_floats_to_micros(column, unit, 1)
    except Exception:  # noqa: BLE001 - the caller converts again and words the refusal
        return None


def _no_epochs(batch: pa.RecordBatch) -> EpochsAhead:
    return None


@contextmanager
def _csv_batches(
    path: Path, header: list[str], convert: pacsv.ConvertOptions, *, integer_epochs: bool
) -> Iterator[Iterator[tuple[pa.RecordBatch, EpochsAhead]]]:
    """The CSV's batches: parsed on a thread pool for the fast path (``csv_blocks``, which may
    raise ``NotPlain``: the caller then takes the general path), each with its timestamps
    converted ahead by the worker that parsed it; by arrow's streaming reader otherwise. On
    leaving, the pool's in-flight blocks are dropped before the caller goes on."""
    if not integer_epochs:
        options = pacsv.ReadOptions(block_size=CSV_BLOCK_BYTES, encoding="utf8")
        reader = pacsv.open_csv(path, read_options=options, convert_options=convert)
        yield ((batch, _no_epochs(batch)) for batch in reader)
        return
    batches = prepared_batches(
        path, header, convert, CSV_BLOCK_BYTES, default_workers(), _epochs_ahead
    )
    with closing(batches) as b:
        yield b


def _convert_csv(
    path: Path,
    target: Path,
    header: list[str],
    columns: tuple[str, ...],
    *,
    max_rows: int | None,
    integer_epochs: bool,
) -> IngestResult:
    """Check the CSV and write the lastra version, reading ``timestamp`` as text, or with
    ``integer_epochs`` as float64 (a file of epoch numbers: no text column; arrow's CSV reader
    parses a number to the same double as the text path's cast, and whole numbers below 2**53
    are exact; not as int64, whose CSV parser also takes ``0x10``). The fast path gives up on
    anything it cannot read or refuses (``_NotIntegerEpochs``, or any other error) and the
    caller reruns the general path, so a refusal has one message whichever path met it.
    """
    ts_type = pa.float64() if integer_epochs else pa.string()
    convert = pacsv.ConvertOptions(
        column_types={"timestamp": ts_type, **{name: pa.float64() for name in columns}},
        include_columns=["timestamp", *columns],
        strings_can_be_null=True,
    )
    checker = RowChecker(max_rows=max_rows)
    unit: TimestampUnit | None = None
    try:
        with LastraVersionWriter(columns, target) as writer:
            try:
                with _csv_batches(path, header, convert, integer_epochs=integer_epochs) as batches:
                    for batch, ahead in batches:
                        if batch.num_rows == 0:
                            continue
                        first_row = checker.rows + 1
                        ts_column = batch.column(0)
                        if unit is None:
                            first = ts_column[0].as_py()
                            if first is None:
                                raise RowError(f"{row_label(1)}: timestamp is empty")
                            unit = detect_unit(first)
                        if ahead is not None and ahead[0] is unit:
                            ts_us = ahead[1]
                        elif integer_epochs:
                            ts_us = epoch_floats_to_micros(ts_column, unit, first_row)
                        else:
                            ts_us = to_micros(ts_column, unit, first_row)
                        values = _values(batch, columns, first_row)
                        checker.check(ts_us, values)
                        writer.write(ts_us, values)
            except pa.ArrowInvalid as exc:
                if integer_epochs:
                    raise _NotIntegerEpochs from None
                raise IngestError(_locate_csv_problem(path, header, str(exc))) from None
            if unit is None:
                raise IngestError("the CSV has a header but no data rows; upload at least one row")
            writer.finish()
    except (RowError, TimestampError, IngestError):
        if integer_epochs:
            raise _NotIntegerEpochs from None
        raise
    return _result(checker, DataFormat.LASTRA, target, unit, columns)


# -- parquet --------------------------------------------------------------------------------


def _ingest_parquet(path: Path, max_rows: int | None) -> IngestResult:
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise IngestError(f"the parquet file is damaged or truncated: {exc}") from None
    declared = parquet.metadata.num_rows
    if max_rows is not None and declared > max_rows:
        raise IngestError(too_many_rows(declared, max_rows))
    names = list(parquet.schema_arrow.names)
    _require_columns(names, "parquet file")
    ts_name = next(name for name in TIMESTAMP_NAMES if name in names)
    columns = value_columns(names)
    checker = RowChecker(max_rows=max_rows)
    unit: TimestampUnit | None = None
    try:
        for batch in parquet.iter_batches(batch_size=ROW_GROUP, columns=[ts_name, *columns]):
            if batch.num_rows == 0:
                continue
            first_row = checker.rows + 1
            ts_column = batch.column(0)
            if unit is None:
                if pa.types.is_timestamp(ts_column.type):
                    unit = arrow_unit(ts_column.type)
                else:
                    unit = detect_unit(ts_column[0].as_py())
            ts_us = to_micros(ts_column, unit, first_row)
            checker.check(ts_us, _values(batch, columns, first_row))
    except (pa.ArrowInvalid, OSError) as exc:
        raise IngestError(f"the parquet file is damaged or truncated: {exc}") from None
    return _result(checker, DataFormat.PARQUET, path, unit or TimestampUnit.MICROS, columns)


# -- lastra ---------------------------------------------------------------------------------


def _ingest_lastra(path: Path, max_rows: int | None) -> IngestResult:
    try:
        reader = LastraReader.from_bytes(path.read_bytes())
        ts_name = lastra_timestamp_column(reader)
        names = [c.name for c in reader.series_columns]
        if ts_name is None:
            raise IngestError(
                "the lastra file has no int64 'ts' or 'timestamp' series column; "
                f"its series columns are {', '.join(names) or 'none'}"
            )
        doubles = {c.name for c in reader.series_columns if c.data_type is DataType.DOUBLE}
        if "close" not in doubles:
            raise IngestError(
                "the lastra file has no float64 'close' series column; "
                f"its series columns are {', '.join(names) or 'none'}"
            )
        columns = tuple(name for name in value_columns(names) if name in doubles)
        raw = np.asarray(reader.read_series_long(ts_name), dtype=np.int64)
        values = {n: np.asarray(reader.read_series_double(n), dtype=np.float64) for n in columns}
    except IngestError:
        raise
    except Exception as exc:  # the lastra reader raises many kinds on damaged input
        raise IngestError(f"the lastra file is damaged or truncated: {exc}") from None
    if raw.size == 0:
        raise IngestError("the lastra file has no rows; upload at least one row")
    unit = lastra_unit(reader, ts_name, int(raw[0]))
    scale = {TimestampUnit.SECONDS: 1_000_000, TimestampUnit.MILLIS: 1_000}.get(unit, 1)
    checker = RowChecker(max_rows=max_rows)
    for start in range(0, int(raw.size), ROW_GROUP):
        chunk = slice(start, start + ROW_GROUP)
        checker.check(raw[chunk] * scale, {n: v[chunk] for n, v in values.items()})
    return _result(checker, DataFormat.LASTRA, path, unit, columns)


# -- imports ---------------------------------------------------------------------------------


def build_version(
    ts_us: I64, values: dict[str, F64], target: Path, max_rows: int | None = None
) -> IngestResult:
    """A lastra version from columns already in memory (an import), checked like an upload.

    ``values`` holds ``close`` and any optional columns; timestamps are epoch microseconds.
    """
    columns = value_columns(list(values))
    checker = RowChecker(max_rows=max_rows)
    ordered = {name: np.ascontiguousarray(values[name], dtype=np.float64) for name in columns}
    times = np.ascontiguousarray(ts_us, dtype=np.int64)
    try:
        checker.check(times, ordered)
    except RowError as exc:
        raise IngestError(str(exc)) from None
    with LastraVersionWriter(columns, target) as writer:
        writer.write(times, ordered)
        writer.finish()
    return _result(checker, DataFormat.LASTRA, target, TimestampUnit.MICROS, columns)
