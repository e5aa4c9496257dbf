"""A lastra writer that streams row groups to disk instead of holding the whole file.

``lastra.LastraWriter`` keeps every encoded row group until ``write_to``, then builds the file
in one buffer and copies it: three times the file in memory, 1.6 GB for a 10-million-row
upload. The format allows streaming: a fixed 22-byte header, the column descriptors, the row
groups (each column as length + bytes), then a footer with each group's offset, row count,
timestamp range and checksums. So this writer writes the header with a placeholder row count,
appends each row group as soon as the library has encoded it, keeps only the footer entries,
and finally writes the footer and rewrites the header. Files of one row group have a different
footer; they are small and go through the library's own writer.

Relies on ``lastra`` 0.8.3 internals (pinned in pyproject); the round trip and byte equality
with the library's writer are tested in tests/unit/datasets/test_lastra_stream.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from io import BufferedWriter
from pathlib import Path
from typing import Any

from lastra import LastraWriter
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
        super().write_series(row_count, *column_data)
        if self._handle is not None or len(self._row_groups) > 1:
            self._flush()
        return self

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
                self._handle.write(_int_le(len(column)))
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
