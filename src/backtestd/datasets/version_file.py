"""The stored file of a dataset version: written by ingest, read back by prepare.

A CSV upload becomes lastra: ``ts`` (int64 epoch microseconds, ``unit=us``) and one float64
column per value column, all stored RAW. RAW, not delta-varint, for ``ts``: the lastra library
encodes delta-varint one row at a time in Python (about 1.1 s per million rows, most of an
ingest's time), RAW is a buffer copy; the file is 6 bytes a row larger (docs/datasets.md).
Parquet and lastra uploads are stored as they were PUT and read here with the same column rules
as at ingest (``timestamp`` or ``ts``, plus value columns).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq
from lastra import Codec, DataType, LastraReader

from backtestd.datasets.lastra_stream import StreamingLastraWriter
from backtestd.datasets.timestamps import detect_unit, to_micros
from backtestd.domain.datasets import OPTIONAL_COLUMNS, DataFormat, TimestampUnit

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

ROW_GROUP = 65_536
TIMESTAMP_NAMES = ("timestamp", "ts")
LASTRA_UNITS = {
    "s": TimestampUnit.SECONDS,
    "ms": TimestampUnit.MILLIS,
    "us": TimestampUnit.MICROS,
    "micros": TimestampUnit.MICROS,
    "millis": TimestampUnit.MILLIS,
}


@dataclass(frozen=True)
class VersionData:
    """A version's rows: ``ts_us`` and the value columns it has (``close`` always)."""

    ts_us: I64
    columns: dict[str, F64]

    def between(self, start_us: int, end_us: int) -> VersionData:
        lo, hi = np.searchsorted(self.ts_us, [start_us, end_us], side="left")
        return VersionData(
            self.ts_us[lo:hi], {name: col[lo:hi] for name, col in self.columns.items()}
        )


def value_columns(names: list[str]) -> tuple[str, ...]:
    """The value columns a file has, in the canonical order (``close`` first)."""
    present = set(names)
    return ("close", *(name for name in OPTIONAL_COLUMNS if name in present))


class LastraVersionWriter:
    """Writes checked chunks to one lastra file at ``path`` (row groups of ``ROW_GROUP``),
    streaming each row group to disk as it is encoded (``lastra_stream``)."""

    def __init__(self, columns: tuple[str, ...], path: Path) -> None:
        self.columns = columns
        self._writer = StreamingLastraWriter(path, row_group_size=ROW_GROUP)
        self._writer.add_series_column("ts", DataType.LONG, Codec.RAW, {"unit": "us"})
        for name in columns:
            self._writer.add_series_column(name, DataType.DOUBLE, Codec.RAW)

    def write(self, ts_us: I64, values: dict[str, F64]) -> None:
        if ts_us.size:
            self._writer.write_series(
                int(ts_us.size), ts_us, *(np.ascontiguousarray(values[n]) for n in self.columns)
            )

    def finish(self) -> int:
        return self._writer.finish()

    def __enter__(self) -> LastraVersionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._writer.abort()


def lastra_timestamp_column(reader: LastraReader) -> str | None:
    names = {c.name: c for c in reader.series_columns}
    for name in TIMESTAMP_NAMES:
        if name in names and names[name].data_type is DataType.LONG:
            return name
    return None


def lastra_unit(reader: LastraReader, ts_name: str, first: int) -> TimestampUnit:
    for column in reader.series_columns:
        if column.name == ts_name:
            unit = LASTRA_UNITS.get(column.metadata.get("unit", ""))
            if unit is not None:
                return unit
    return detect_unit(first)


def read_version(path: Path, data_format: DataFormat) -> VersionData:
    """The whole version in memory (prepare reads at most ``maxRangeDays`` of it)."""
    if data_format is DataFormat.LASTRA:
        reader = LastraReader.from_bytes(path.read_bytes())
        ts_name = lastra_timestamp_column(reader) or "ts"
        raw = np.asarray(reader.read_series_long(ts_name), dtype=np.int64)
        if raw.size == 0:
            return VersionData(raw, {"close": np.empty(0)})
        unit = lastra_unit(reader, ts_name, int(raw[0]))
        names = [c.name for c in reader.series_columns]
        columns = {
            name: np.asarray(reader.read_series_double(name), dtype=np.float64)
            for name in value_columns(names)
        }
        return VersionData(raw * _scale(unit), columns)
    return _from_table(pq.read_table(path))


def read_version_range(
    path: Path, data_format: DataFormat, start_us: int, end_us: int
) -> VersionData:
    """The version's rows in ``[start_us, end_us)``. Of a parquet version only the row groups
    whose timestamp statistics overlap the range are read: a prepare of one hour of a large
    version used to decode all of it (issue 26: a worker killed for memory in a loop)."""
    if data_format is DataFormat.PARQUET:
        groups = parquet_row_groups(path, start_us, end_us)
        if groups is not None:
            table = pq.ParquetFile(path).read_row_groups(groups)
            return _from_table(table).between(start_us, end_us)
    return read_version(path, data_format).between(start_us, end_us)


_UNIT_SCALE = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": 0}


def parquet_row_groups(path: Path, start_us: int, end_us: int) -> list[int] | None:
    """The row groups of a parquet version that may hold rows of ``[start_us, end_us)``, from
    each group's timestamp minimum and maximum; None when the statistics cannot tell (string
    timestamps, no statistics), and the whole file must be read."""
    parquet = pq.ParquetFile(path)
    schema = parquet.schema_arrow
    ts_name = next((n for n in TIMESTAMP_NAMES if n in schema.names), None)
    if ts_name is None or parquet.num_row_groups == 0:
        return None
    kind = schema.field(ts_name).type
    if pa.types.is_timestamp(kind):
        scale = _UNIT_SCALE[kind.unit]
    elif pa.types.is_integer(kind):
        first = parquet.read_row_group(0, columns=[ts_name]).column(0)
        if len(first) == 0:
            return None
        scale = _scale(detect_unit(first[0].as_py()))
    else:
        return None
    index = schema.get_field_index(ts_name)
    groups = []
    for group in range(parquet.num_row_groups):
        stats = parquet.metadata.row_group(group).column(index).statistics
        if stats is None or not stats.has_min_max:
            groups.append(group)
            continue
        low, high = _micros(int(stats.min_raw), scale), _micros(int(stats.max_raw), scale)
        if high >= start_us and low < end_us:
            groups.append(group)
    return groups


def _micros(value: int, scale: int) -> int:
    return value // 1000 if scale == 0 else value * scale


def _from_table(table: pa.Table) -> VersionData:
    ts_name = next(n for n in TIMESTAMP_NAMES if n in table.column_names)
    if table.num_rows == 0:
        return VersionData(
            np.empty(0, dtype=np.int64),
            {name: np.empty(0) for name in value_columns(table.column_names)},
        )
    ts_column = table.column(ts_name).combine_chunks()
    unit = (
        TimestampUnit.MICROS
        if pa.types.is_timestamp(ts_column.type)
        else detect_unit(ts_column[0].as_py())
    )
    ts_us = to_micros(ts_column, unit, 1)
    columns = {
        name: np.asarray(table.column(name).to_numpy(), dtype=np.float64)
        for name in value_columns(table.column_names)
    }
    return VersionData(ts_us, columns)


def _scale(unit: TimestampUnit) -> int:
    return {TimestampUnit.SECONDS: 1_000_000, TimestampUnit.MILLIS: 1_000}.get(unit, 1)
