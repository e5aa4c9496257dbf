"""Unwrapping a gzip or single-member zip upload to a plain file, bounded by size.

The cap is on the *decompressed* bytes, counted while they stream: a small gzip bomb stops at
the cap instead of filling the disk, and a zip whose directory under-reports its member's size
is caught the same way.
"""

from __future__ import annotations

import gzip
import shutil
import zipfile
import zlib
from pathlib import Path
from typing import IO

from backtestd.datasets.formats import FormatError, UploadFormat, detect

CHUNK = 1 << 20
HEAD_BYTES = 512
MAX_ZIP_ENTRIES = 16
"""Entries (files and folders) a zip upload may list: one file, perhaps in a few folders. The
directory is counted from its end record before it is read, so a zip listing 400,000 folders
costs a few bytes of reading, not the memory of parsing them."""
_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"


def head_of(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(HEAD_BYTES)


def _copy_capped(source: IO[bytes] | gzip.GzipFile, target: Path, cap: int, what: str) -> None:
    written = 0
    with target.open("wb") as out:
        while chunk := source.read(CHUNK):
            written += len(chunk)
            if written > cap:
                raise FormatError(
                    f"the {what} decompresses to more than {cap:,} bytes, over this account's "
                    "maxDatasetBytes; upload a smaller file"
                )
            out.write(chunk)


def zip_entry_count(path: Path) -> int | None:
    """The number of entries a zip's end-of-central-directory record declares (its zip64
    record's when it has one); ``None`` when no end record is found (a damaged zip).

    >>> import io, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     target = Path(d) / "a.zip"
    ...     with zipfile.ZipFile(target, "w") as z:
    ...         z.writestr("x/", ""); z.writestr("x/a.csv", "timestamp,close\\n")
    ...     zip_entry_count(target)
    2
    """
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        tail_size = min(size, 22 + 65_535 + 20)
        handle.seek(size - tail_size)
        tail = handle.read(tail_size)
        at = tail.rfind(_EOCD)
        if at < 0 or len(tail) < at + 22:
            return None
        count = int.from_bytes(tail[at + 10 : at + 12], "little")
        locator = at - 20
        if count != 0xFFFF or locator < 0 or tail[locator : locator + 4] != _ZIP64_LOCATOR:
            return count
        record_at = int.from_bytes(tail[locator + 8 : locator + 16], "little")
        handle.seek(record_at)
        record = handle.read(56)
        if len(record) < 40:
            return None
        return int.from_bytes(record[32:40], "little")


def unpack(path: Path, work_dir: Path, cap: int) -> tuple[Path, UploadFormat]:
    """The plain file inside ``path`` (``path`` itself when it is not a container) and its
    format; a container inside a container is refused."""
    kind = detect(head_of(path))
    if kind is UploadFormat.GZIP:
        inner = work_dir / "unpacked"
        try:
            with gzip.open(path, "rb") as source:
                _copy_capped(source, inner, cap, "gzip file")
        except (OSError, EOFError, zlib.error) as exc:
            raise FormatError(f"the gzip file is damaged or truncated: {exc}") from None
        return inner, _plain(inner, "gzip")
    if kind is UploadFormat.ZIP:
        inner = work_dir / "unpacked"
        entries = zip_entry_count(path)
        if entries is not None and entries > MAX_ZIP_ENTRIES:
            raise FormatError(
                f"the zip file lists {entries:,} entries; a dataset zip holds one file (in at "
                f"most {MAX_ZIP_ENTRIES} entries with its folders): zip one CSV, parquet or "
                "lastra file"
            )
        try:
            with zipfile.ZipFile(path) as archive:
                members = [m for m in archive.infolist() if not m.is_dir()]
                if len(members) != 1:
                    names = ", ".join(m.filename for m in members[:5]) or "none"
                    raise FormatError(
                        f"the zip file must hold exactly one file, it holds {len(members)} "
                        f"({names}); zip one CSV, parquet or lastra file"
                    )
                with archive.open(members[0]) as source:
                    _copy_capped(source, inner, cap, "zip file")
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
            raise FormatError(f"the zip file is damaged or truncated: {exc}") from None
        return inner, _plain(inner, "zip")
    return path, kind


def _plain(inner: Path, container: str) -> UploadFormat:
    kind = detect(head_of(inner))
    if kind in (UploadFormat.GZIP, UploadFormat.ZIP):
        raise FormatError(
            f"the {container} file holds another compressed file; compress the data once"
        )
    return kind


def copy_file(source: Path, target: Path) -> None:
    with source.open("rb") as src, target.open("wb") as dst:
        shutil.copyfileobj(src, dst, CHUNK)
