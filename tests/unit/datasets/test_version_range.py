"""A prepare reads only the row groups of a parquet version that its range needs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from backtestd.datasets.version_file import parquet_row_groups, read_version, read_version_range
from backtestd.domain.datasets import DataFormat

START_S = 1_735_689_600  # 2025-01-01T00:00:00Z
ROWS = 10_000
GROUP = 1_000  # ten row groups of 1,000 seconds each
US = 1_000_000


def _parquet(tmp_path: Path, ts: pa.Array) -> Path:
    path = tmp_path / "version.parquet"
    close = pa.array(np.linspace(100.0, 200.0, len(ts)))
    pq.write_table(pa.table({"timestamp": ts, "close": close}), path, row_group_size=GROUP)
    return path


@pytest.fixture(
    params=["ms-integers", "second-integers", "timestamp[us]"],
)
def version(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    seconds = START_S + np.arange(ROWS, dtype=np.int64)
    if request.param == "ms-integers":
        return _parquet(tmp_path, pa.array(seconds * 1000))
    if request.param == "second-integers":
        return _parquet(tmp_path, pa.array(seconds))
    return _parquet(tmp_path, pa.array(seconds * US, type=pa.timestamp("us", tz="UTC")))


def test_only_the_groups_overlapping_the_range_are_read(version: Path) -> None:
    start = (START_S + 2_500) * US
    end = (START_S + 4_200) * US  # rows 2,500 .. 4,199: groups 2, 3 and 4
    assert parquet_row_groups(version, start, end) == [2, 3, 4]
    assert parquet_row_groups(version, (START_S + ROWS) * US, (START_S + 2 * ROWS) * US) == []

    part = read_version_range(version, DataFormat.PARQUET, start, end)
    whole = read_version(version, DataFormat.PARQUET).between(start, end)

    assert len(part.ts_us) == 1_700
    np.testing.assert_array_equal(part.ts_us, whole.ts_us)
    np.testing.assert_array_equal(part.columns["close"], whole.columns["close"])


def test_a_range_outside_the_version_reads_no_group_and_gives_no_rows(version: Path) -> None:
    empty = read_version_range(
        version, DataFormat.PARQUET, (START_S + ROWS) * US, (START_S + 2 * ROWS) * US
    )
    assert len(empty.ts_us) == 0
    assert len(empty.columns["close"]) == 0


def test_string_timestamps_cannot_be_cut_by_statistics_and_are_read_whole(
    tmp_path: Path,
) -> None:
    stamps = [f"2025-01-01T00:{m:02d}:00Z" for m in range(60)]
    path = _parquet(tmp_path, pa.array(stamps))
    assert parquet_row_groups(path, START_S * US, (START_S + 600) * US) is None
    part = read_version_range(path, DataFormat.PARQUET, START_S * US, (START_S + 600) * US)
    assert len(part.ts_us) == 10
