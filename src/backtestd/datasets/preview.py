"""A dataset version's close series, shortened for a chart without hiding its extremes.

The base every preview is cut from (:class:`PreviewBase`, at most ``BASE_POINTS`` points) is
computed where the version is written, on a worker, and stored beside it as a small ``.npz``
object; the API only reads that object, never the version itself (issue 26: previews read whole
versions in the API process).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from backtestd.datasets.version_file import VersionData

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


def downsample_extrema(ts: I64, values: F64, buckets: int) -> tuple[I64, F64]:
    """At most about ``4 * buckets`` points: the series is cut into ``buckets`` equal runs of
    rows and each run keeps its first, lowest, highest and last row, in time order, so spikes
    and the global minimum and maximum survive. Short series come back unchanged.

    >>> ts = np.arange(16, dtype=np.int64)
    >>> v = np.array([5, 1, 5, 5, 5, 5, 9, 5, 5, 5, 5, 5, 5, 5, 5, 2], dtype=np.float64)
    >>> small_ts, small_v = downsample_extrema(ts, v, 2)
    >>> small_ts.tolist(), small_v.tolist()
    ([0, 1, 6, 7, 8, 15], [5.0, 1.0, 9.0, 5.0, 5.0, 2.0])
    """
    n = len(ts)
    if buckets < 1:
        raise ValueError("buckets must be at least 1")
    if n <= 4 * buckets:
        return ts, values
    edges = np.linspace(0, n, buckets + 1).astype(np.int64)
    keep: list[int] = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        if hi <= lo:
            continue
        run = values[lo:hi]
        picks = {int(lo), int(lo + np.argmin(run)), int(lo + np.argmax(run)), int(hi - 1)}
        keep.extend(sorted(picks))
    index = np.asarray(keep, dtype=np.int64)
    return ts[index], values[index]


BASE_POINTS = 20_000
"""The most a preview may ask for (the route's bound): the base every preview is cut from."""


@dataclass(frozen=True)
class PreviewBase:
    """A version's row count and its close series reduced to at most ``BASE_POINTS`` points."""

    rows: int
    ts_us: I64
    close: F64

    @classmethod
    def of(cls, data: VersionData) -> PreviewBase:
        ts, close = downsample_extrema(data.ts_us, data.columns["close"], BASE_POINTS // 4)
        return cls(len(data.ts_us), ts, close)

    def encode(self) -> bytes:
        """The stored object: an ``.npz`` of plain arrays (read back without pickle)."""
        buffer = io.BytesIO()
        np.savez(
            buffer, rows=np.array([self.rows], dtype=np.int64), ts_us=self.ts_us, close=self.close
        )
        return buffer.getvalue()

    @classmethod
    def decode(cls, blob: bytes) -> PreviewBase:
        with np.load(io.BytesIO(blob), allow_pickle=False) as arrays:
            return cls(
                int(arrays["rows"][0]),
                arrays["ts_us"].astype(np.int64, copy=False),
                arrays["close"].astype(np.float64, copy=False),
            )
