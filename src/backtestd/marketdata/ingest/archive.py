"""Open a downloaded archive as a stream of CSV bytes, whether it is a bare ``.csv`` or a zip.

Users hand us what data.binance.vision serves (a zip holding one csv) or the csv they
unpacked themselves. Everything downstream only needs "open the csv again from the start"
(the reader peeks at the first line, parses, and on failure re-scans for the bad line), so
this module reduces both shapes to that one operation and validates the zip layout up front.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from backtestd.marketdata.ingest.errors import ArchiveFormatError


@dataclass(frozen=True)
class CsvSource:
    """A csv file on disk, or the single csv member of a zip file on disk."""

    path: Path
    member: str | None = None

    @property
    def label(self) -> str:
        """How error messages name the data: the file, plus the member for zips."""
        return f"{self.path} ({self.member})" if self.member else str(self.path)

    def error(self, line: int | None, reason: str) -> ArchiveFormatError:
        where = f"{self.label}, line {line}" if line is not None else self.label
        return ArchiveFormatError(f"{where}: {reason}")

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        """A fresh binary stream positioned at the start of the csv text.

        Zip members are streamed rather than read into memory: a busy pair's day of trades
        decompresses to hundreds of megabytes.
        """
        try:
            if self.member is None:
                with self.path.open("rb") as stream:
                    yield stream
            else:
                with zipfile.ZipFile(self.path) as archive, archive.open(self.member) as stream:
                    yield stream
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise self.error(None, f"cannot read archive: {exc}") from exc


def open_source(path: Path) -> CsvSource:
    """Check the file's outer shape and say where its csv text lives.

    A zip must hold exactly one csv file (directory entries are ignored): Binance zips
    always do, and anything else means we cannot know which member the user meant.
    """
    if not path.is_file():
        raise ArchiveFormatError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return CsvSource(path)
    if suffix != ".zip":
        raise ArchiveFormatError(f"{path}: expected a .csv or .zip file")
    try:
        with zipfile.ZipFile(path) as archive:
            members = [info.filename for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, OSError) as exc:
        raise ArchiveFormatError(f"{path}: not a readable zip file: {exc}") from exc
    if len(members) != 1:
        listed = ", ".join(members) if members else "none"
        raise ArchiveFormatError(
            f"{path}: a zip must contain exactly one csv file, found {len(members)} ({listed})"
        )
    member = members[0]
    if not member.lower().endswith(".csv"):
        raise ArchiveFormatError(f"{path}: zip member {member!r} is not a .csv file")
    return CsvSource(path, member)
