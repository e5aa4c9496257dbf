"""Format detection looks only at content."""

from __future__ import annotations

import gzip
import io
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from backtestd.datasets.formats import FormatError, UploadFormat, detect

CSV = b"timestamp,close\n1767225600000,100.5\n"


def _zip(members: dict[str, bytes]) -> bytes:
    """Fixed member dates, so every xdist worker collects the same bytes (ids included)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def _parquet() -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"timestamp": [1], "close": [1.0]}), buf)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (CSV, UploadFormat.CSV),
        (b"\xef\xbb\xbf" + CSV, UploadFormat.CSV),
        (gzip.compress(CSV, mtime=0), UploadFormat.GZIP),
        (_zip({"data.csv": CSV}), UploadFormat.ZIP),
        (_parquet(), UploadFormat.PARQUET),
    ],
    ids=["csv", "csv-with-bom", "gzip", "zip", "parquet"],
)
def test_detects_from_content(data: bytes, expected: UploadFormat) -> None:
    assert detect(data[:512]) is expected


def test_empty_and_unknown_binary_are_refused_with_a_reason() -> None:
    with pytest.raises(FormatError, match="empty"):
        detect(b"")
    with pytest.raises(FormatError, match="binary"):
        detect(b"\x00\x01\x02garbage")
