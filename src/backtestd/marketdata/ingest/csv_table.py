"""Strict, fast reading of a headerless-or-headed CSV into typed numpy columns.

pyarrow parses a day of trades in well under a second, but its conversion errors do not say
which row failed, and a user fixing a file needs a line number. So the fast path is pyarrow
with no leniency (no null values, exact column count), and only when it refuses the file do
we re-scan it in Python, with the same rules, to find and name the first bad line. The
re-scan costs nothing on good files.
"""

from __future__ import annotations

import csv
import enum
import io
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from backtestd.marketdata.ingest.archive import CsvSource
from backtestd.marketdata.ingest.errors import ArchiveFormatError

_TRUE = ("True", "true", "TRUE", "1")
_FALSE = ("False", "false", "FALSE", "0")
_HEADER_PEEK_BYTES = 64 * 1024
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class ColumnType(enum.Enum):
    """The value types a layout can ask for; each maps to one pyarrow type and one pattern."""

    INT = "integer"
    FLOAT = "number"
    BOOL = "boolean"


_ARROW_TYPES = {
    ColumnType.INT: pa.int64(),
    ColumnType.FLOAT: pa.float64(),
    ColumnType.BOOL: pa.bool_(),
}
# What pyarrow accepts, restated so the Python re-scan flags the same values it refused.
_PATTERNS = {
    ColumnType.INT: re.compile(r"[+-]?\d+"),
    ColumnType.FLOAT: re.compile(
        r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|NaN|inf|Inf|infinity|Infinity)"
    ),
}


@dataclass(frozen=True)
class CsvLayout:
    """Every column of the file in order, and the subset we convert (by name, with type).

    Unconverted columns are still counted, so a row with a missing trailing field is caught.
    """

    names: tuple[str, ...]
    types: Mapping[str, ColumnType]


@dataclass(frozen=True)
class CsvColumns:
    """Parsed columns in file order, with enough context to blame a row on a line."""

    source: CsvSource
    has_header: bool
    columns: dict[str, np.ndarray]

    def fail(self, row: int, reason: str) -> ArchiveFormatError:
        """An error for data row ``row`` (0-based, file order), naming its physical line."""
        return self.source.error(_line_of_row(self.source, self.has_header, row), reason)

    def require_finite_non_negative(self, *names: str) -> None:
        """Reject NaN, infinities and negatives: prices and sizes can be none of these."""
        for name in names:
            values = self.columns[name]
            bad = ~(np.isfinite(values) & (values >= 0))
            if bad.any():
                row = int(np.argmax(bad))
                value = float(values[row])
                reason = f"column {name!r}: {value!r} is not a finite non-negative number"
                raise self.fail(row, reason)


def read_columns(source: CsvSource, layout: CsvLayout) -> CsvColumns:
    """Parse the whole csv; raise :class:`ArchiveFormatError` with a line number if malformed."""
    has_header = _has_header(source, layout)
    read_options = pacsv.ReadOptions(
        column_names=list(layout.names), skip_rows=1 if has_header else 0, use_threads=True
    )
    convert_options = pacsv.ConvertOptions(
        column_types={name: _ARROW_TYPES[kind] for name, kind in layout.types.items()},
        include_columns=list(layout.types),
        null_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        true_values=list(_TRUE),
        false_values=list(_FALSE),
    )
    try:
        with source.open() as stream:
            table = pacsv.read_csv(
                stream, read_options=read_options, convert_options=convert_options
            )
    except pa.ArrowInvalid as exc:
        raise _diagnose(source, layout, has_header, str(exc)) from exc
    if table.num_rows == 0:
        raise source.error(None, "contains no data rows")
    # Zero-copy views of Arrow buffers are read-only; frames from other producers are plain
    # writable arrays, so copy those (only single-chunk columns are views) to match.
    columns = {
        name: np.require(table.column(name).to_numpy(), requirements="W") for name in layout.types
    }
    return CsvColumns(source, has_header, columns)


def _has_header(source: CsvSource, layout: CsvLayout) -> bool:
    """Newer Binance files start with a header line, older ones with data.

    A data line starts with an integer (an id or a timestamp); anything else is a header,
    which must at least have the right number of fields or the file is not what its name says.
    """
    with source.open() as stream:
        first = stream.readline(_HEADER_PEEK_BYTES).decode("utf-8-sig", errors="replace")
    fields = next(csv.reader([first.rstrip("\r\n")]), [])
    if not fields or _PATTERNS[ColumnType.INT].fullmatch(fields[0].strip()):
        return False
    if len(fields) != len(layout.names):
        raise source.error(
            1,
            f"header has {len(fields)} columns, expected {len(layout.names)} "
            f"({','.join(layout.names)})",
        )
    return True


def _data_rows(source: CsvSource, has_header: bool) -> Iterator[tuple[int, list[str]]]:
    """(physical line, fields) of every non-empty data row, as pyarrow sees them."""
    with source.open() as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="")
        reader = csv.reader(text)
        for index, fields in enumerate(reader):
            if (index == 0 and has_header) or not fields:
                continue
            yield reader.line_num, fields


def _line_of_row(source: CsvSource, has_header: bool, row: int) -> int | None:
    for index, (line, _) in enumerate(_data_rows(source, has_header)):
        if index == row:
            return line
    return None


def _diagnose(
    source: CsvSource, layout: CsvLayout, has_header: bool, arrow_message: str
) -> ArchiveFormatError:
    """Find the first row pyarrow would refuse and describe it; only runs on bad files."""
    positions = {name: layout.names.index(name) for name in layout.types}
    seen = 0
    for line, fields in _data_rows(source, has_header):
        seen += 1
        if len(fields) != len(layout.names):
            return source.error(line, f"expected {len(layout.names)} columns, got {len(fields)}")
        for name, kind in layout.types.items():
            value = fields[positions[name]].strip()
            if not _valid(kind, value):
                return source.error(line, f"column {name!r}: {value!r} is not a valid {kind.value}")
    if seen == 0:
        return source.error(None, "contains no data rows")
    return source.error(None, f"cannot parse csv: {arrow_message}")


def _valid(kind: ColumnType, value: str) -> bool:
    if kind is ColumnType.BOOL:
        return value in _TRUE or value in _FALSE
    if _PATTERNS[kind].fullmatch(value) is None:
        return False
    return kind is not ColumnType.INT or _INT64_MIN <= int(value) <= _INT64_MAX
