"""Format detection of an uploaded dataset from its bytes, never from a name.

The PUT carries no file name and no content type, so the first bytes decide: gzip and zip are
containers around one inner file, parquet and lastra have magic numbers, and anything else that
decodes as text with a header line is taken as CSV.
"""

from __future__ import annotations

import enum

from lastra.format import MAGIC as LASTRA_MAGIC

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"
PARQUET_MAGIC = b"PAR1"
LASTRA_MAGIC_BYTES = LASTRA_MAGIC.to_bytes(4, "little")


class UploadFormat(enum.StrEnum):
    CSV = "csv"
    GZIP = "gzip"
    ZIP = "zip"
    PARQUET = "parquet"
    LASTRA = "lastra"


class FormatError(ValueError):
    """The bytes are not any accepted dataset format; the message says what was seen."""


def detect(head: bytes) -> UploadFormat:
    """Classify from the first bytes (a few hundred are plenty)."""
    if not head:
        raise FormatError("the uploaded file is empty: PUT a CSV, parquet or lastra file")
    if head.startswith(GZIP_MAGIC):
        return UploadFormat.GZIP
    if head.startswith(ZIP_MAGIC) or head.startswith(EMPTY_ZIP_MAGIC):
        return UploadFormat.ZIP
    if head.startswith(PARQUET_MAGIC):
        return UploadFormat.PARQUET
    if head.startswith(LASTRA_MAGIC_BYTES):
        return UploadFormat.LASTRA
    text = head.lstrip(b"\xef\xbb\xbf")
    if b"\x00" in text:
        raise FormatError(
            "the uploaded file is binary but not gzip, zip, parquet or lastra; "
            "PUT a CSV with a header row, a parquet file or a lastra file"
        )
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(text) - 4:  # a multi-byte character cut by the head is fine
            raise FormatError(
                "the uploaded file is neither UTF-8 text nor a known binary format"
            ) from exc
    return UploadFormat.CSV
