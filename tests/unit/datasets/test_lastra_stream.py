"""The streaming lastra writer writes exactly the bytes the library's writer would."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from lastra import Codec, DataType, LastraReader, LastraWriter

from backtestd.datasets.lastra_stream import StreamingLastraWriter


def _columns(writer: LastraWriter) -> None:
    writer.add_series_column("ts", DataType.LONG, Codec.RAW, {"unit": "us"})
    writer.add_series_column("close", DataType.DOUBLE, Codec.RAW)
    writer.add_series_column("volume", DataType.DOUBLE, Codec.RAW)


@pytest.mark.parametrize(
    ("chunks", "group"), [([10], 64), ([64], 64), ([65], 64), ([100, 3, 250], 64), ([0, 7], 4)]
)
def test_same_bytes_as_the_library_writer(tmp_path: Path, chunks: list[int], group: int) -> None:
    rng = np.random.default_rng(7)
    reference = LastraWriter(row_group_size=group)
    streaming = StreamingLastraWriter(tmp_path / "out.lastra", row_group_size=group)
    _columns(reference)
    _columns(streaming)
    start = 1_700_000_000_000_000
    for count in chunks:
        ts = start + np.arange(count, dtype=np.int64) * 1_000_000
        start += count * 1_000_000
        close, volume = rng.random(count), rng.random(count)
        reference.write_series(count, ts, close, volume)
        streaming.write_series(count, ts, close, volume)
    expected = io.BytesIO()
    reference.write_to(expected)
    size = streaming.finish()
    written = (tmp_path / "out.lastra").read_bytes()
    assert size == len(written)
    assert written == expected.getvalue()
    reader = LastraReader.from_bytes(written)
    assert len(reader.read_series_long("ts")) == sum(chunks)
