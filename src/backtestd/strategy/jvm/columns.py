"""Column files the engine host memory-maps: one raw little-endian array per column.

The JVM maps these files read-only (``FileChannel.map``), so a sweep that runs thousands of
parameter vectors over one prepared dataset reads it from the page cache instead of copying it
into every run. Timestamps are int64 epoch milliseconds, everything else float64, all columns of
one run have the same length.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backtestd.domain.marketdata import RUN_COLUMNS, DataType, column_dtype


def write_columns(
    directory: Path, kind: DataType | str, arrays: Mapping[str, npt.ArrayLike]
) -> dict[str, Path]:
    """Write one file per column of ``kind`` into ``directory``; return name -> path.

    Files are written under a temporary name and renamed, so a concurrent reader never maps a
    half-written column.
    """
    feed = DataType(kind)
    names = RUN_COLUMNS[feed]
    missing = [n for n in names if n not in arrays]
    if missing:
        raise ValueError(f"{feed.value} data needs columns {list(names)}; missing {missing}")
    directory.mkdir(parents=True, exist_ok=True)
    lengths = set()
    paths: dict[str, Path] = {}
    for name in names:
        data = np.ascontiguousarray(np.asarray(arrays[name]), dtype=column_dtype(name))
        if data.ndim != 1:
            raise ValueError(f"column {name!r} must be one-dimensional")
        lengths.add(data.shape[0])
        path = directory / f"{name}.bin"
        tmp = directory / f".{name}.bin.tmp"
        data.tofile(tmp)
        os.replace(tmp, path)
        paths[name] = path
    if len(lengths) != 1:
        raise ValueError(f"columns differ in length: {sorted(lengths)}")
    return paths
