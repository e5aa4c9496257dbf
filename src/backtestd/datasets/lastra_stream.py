"""A lastra writer that streams row groups to disk instead of holding the whole file.

``lastra.LastraWriter`` keeps every encoded row group until ``write_to``, then builds the file
in one buffer and copies it: three times the file in memory, 1.6 GB for a 10-million-row
upload. The format allows streaming: a fixed 22-byte header, the column descriptors, the row
groups (each column as length + bytes), then a footer with each group's offset, row count,
timestamp range and checksums. So this writer writes the header with a placeholder row count,
appends each row group as soon as the library has encoded it, keeps only the footer entries,
and finally writes the footer and rewrites the header. Files of one row group have a different
footer; they are small and go through the library's own writer.

Columns that are all RAW (what ingest writes) skip the library's per-group encoding, which
copies every value twice (a contiguous slice, then ``tobytes``): a RAW column's bytes are the
little-endian values themselves, so each group's slice of the caller's array is checksummed and
written as it is, with the same bytes and checksums.

Relies on ``lastra`` 0.8.3 internals (pinned in pyproject); the round trip and byte equality
with the library's writer are tested in tests/unit/datasets/test_lastra_stream.py.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from io import BufferedWriter
from pathlib import Path
from typing import Any

import numpy as np
from lastra import Codec, DataType, LastraWriter
from lastra import _descriptor as descriptors
from lastra import format as lastra_format
from lastra.format import (
    FLAG_HAS_CHECKSUMS,
    FLAG_HAS_FOOTER,
    FLAG_HAS_ROW_GROUPS,
    FOOTER_MAGIC,
    Header,
    write_header,
)
from lastra.writer import _RowGroupData


def _int_le(value: int) -> bytes:
    return (value & 0xFFFFFFFF).to_bytes(4, "little", signed=False)


def _long_le(value: int) -> bytes:
    return (value & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little", signed=False)


@dataclass(frozen=True)
class _Entry:
    offset: int
    row_count: int
    ts_min: int
    ts_max: int
    crcs: list[int]


class StreamingLastraWriter(LastraWriter):
    """``LastraWriter`` for series data that writes row groups to ``path`` as they come."""

    def __init__(self, path: Path, row_group_size: int) -> None:
        super().__init__(row_group_size=row_group_size)
        self._path = path
        self._handle: BufferedWriter | None = None
        self._data_start = 0
        self._entries: list[_Entry] = []

    def write_series(self, row_count: int, *column_data: Any) -> StreamingLastraWriter:
        if self._all_raw() and len(column_data) == len(self._series_columns):
            self._add_raw_groups(row_count, column_data)
        else:
            super().write_series(row_count, *column_data)
        if self._handle is not None or len(self._row_groups) > 1:
            self._flush()
        return self

    def _all_raw(self) -> bool:
        return all(
            c.codec is Codec.RAW and c.data_type in (DataType.LONG, DataType.DOUBLE)
            for c in self._series_columns
        )

    def _add_raw_groups(self, row_count: int, column_data: tuple[Any, ...]) -> None:
        """``LastraWriter.write_series`` for RAW columns: the same groups, bytes and checksums,
        as views of the caller's arrays (``_flush`` writes them before the call returns, except
        a first lone group, which is copied)."""
        arrays = [
            np.ascontiguousarray(
                data[:row_count], dtype="<i8" if c.data_type is DataType.LONG else "<f8"
            )
            for c, data in zip(self._series_columns, column_data, strict=True)
        ]
        ts_index = next(
            (i for i, c in enumerate(self._series_columns) if c.data_type is DataType.LONG), None
        )
        self._series_row_count += row_count
        for start in range(0, row_count, self._row_group_size):
            end = min(start + self._row_group_size, row_count)
            views = [a[start:end].data.cast("B") for a in arrays]
            ts = arrays[ts_index] if ts_index is not None else None
            self._row_groups.append(
                _RowGroupData(
                    row_count=end - start,
                    ts_min=int(ts[start]) if ts is not None else 0,
                    ts_max=int(ts[end - 1]) if ts is not None else 0,
                    compressed_columns=views,  # memoryviews: bytes-like, written as they are
                    crcs=[zlib.crc32(v) & 0xFFFFFFFF for v in views],
                )
            )
        if self._handle is None and len(self._row_groups) == 1:
            group = self._row_groups[0]  # may stay until the next call: own its bytes
            group.compressed_columns = [bytes(v) for v in group.compressed_columns]

    def _header(self, flags: int) -> bytes:
        return write_header(
            Header(
                version=lastra_format.VERSION,
                flags=flags,
                series_row_count=self._series_row_count,
                series_col_count=len(self._series_columns),
                events_row_count=0,
                events_col_count=0,
            )
        )

    def _flush(self) -> None:
        if self._handle is None:
            self._handle = self._path.open("wb")
            self._handle.write(self._header(0))  # rewritten by finish()
            self._handle.write(descriptors.write_descriptors(self._series_columns))
            self._data_start = self._handle.tell()
        for group in self._row_groups:
            offset = self._handle.tell() - self._data_start
            for column in group.compressed_columns:
                self._handle.write(_int_le(memoryview(column).nbytes))
                self._handle.write(column)
            self._entries.append(
                _Entry(offset, group.row_count, group.ts_min, group.ts_max, list(group.crcs))
            )
        self._row_groups.clear()

    def abort(self) -> None:
        """Close a file left incomplete (a refused upload); its path is the caller's to drop."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def finish(self) -> int:
        """Complete the file; its size in bytes."""
        if self._event_columns:
            raise ValueError("the streaming writer writes series only")
        if self._handle is None:  # zero or one row group: the library's own layout
            with self._path.open("wb") as handle:
                return self.write_to(handle)
        self._flush()
        handle = self._handle
        footer = bytearray(_int_le(len(self._entries)))
        for entry in self._entries:
            footer += _int_le(entry.offset) + _int_le(entry.row_count)
            footer += _long_le(entry.ts_min) + _long_le(entry.ts_max)
        for entry in self._entries:
            for crc in entry.crcs:
                footer += _int_le(crc)
        handle.write(bytes(footer))
        handle.write(_int_le(FOOTER_MAGIC))
        handle.write(_int_le(len(footer)))
        size = handle.tell()
        handle.seek(0)
        handle.write(self._header(FLAG_HAS_FOOTER | FLAG_HAS_CHECKSUMS | FLAG_HAS_ROW_GROUPS))
        handle.close()
        self._handle = None
        return size
