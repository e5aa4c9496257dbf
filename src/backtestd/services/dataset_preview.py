"""A ready dataset's close series, downsampled for a preview chart (the dashboard's dataset
view).

Reading a version is the costly part (the whole file, in the API process), so it happens once
per version: the version is reduced to a base of at most ``BASE_POINTS`` points (extremes kept)
and that base is cached; every ``points`` a request asks for is cut from the cached base, which
costs microseconds. Reads of versions not yet cached are bounded: one in flight per user and
``MAX_READS_IN_FLIGHT`` in all, so one user asking for many previews of a large dataset at once
gets 429s instead of holding the API for everyone (issue 26 measured 48 concurrent previews with
different ``points`` timing the API out for three minutes).
"""

from __future__ import annotations

import tempfile
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path
from threading import Lock

import numpy as np
import numpy.typing as npt

from backtestd.datasets.preview import downsample_extrema
from backtestd.datasets.version_file import VersionData, read_version
from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import DatasetPreview, DatasetStatus, DatasetVersion
from backtestd.errors import Conflict, LimitExceeded
from backtestd.services.datasets import DatasetService
from backtestd.settings import Settings
from backtestd.storage.objects.store import ObjectStore

CACHE_SIZE = 32
BASE_POINTS = 20_000
"""The most a preview may ask for (the route's bound): the base every preview is cut from."""
MAX_READS_IN_FLIGHT = 2


@dataclass(frozen=True)
class _Base:
    rows: int
    ts_us: npt.NDArray[np.int64]
    close: npt.NDArray[np.float64]


class DatasetPreviews:
    def __init__(self, settings: Settings, datasets: DatasetService, objects: ObjectStore) -> None:
        self._settings = settings
        self._datasets = datasets
        self._objects = objects
        self._cache: OrderedDict[str, _Base] = OrderedDict()
        self._reading: Counter[str] = Counter()
        self._lock = Lock()

    def preview(self, principal: Principal, dataset_id: str, points: int) -> DatasetPreview:
        """At most about ``points`` points of the current version's close (extrema kept)."""
        view = self._datasets.get(principal, dataset_id)
        version = view.version
        if view.dataset.status is not DatasetStatus.READY or version is None:
            raise Conflict(
                f"dataset {dataset_id} has no ready version yet (status "
                f"{view.dataset.status.value}): wait until its ingest or import is ready"
            )
        base = self._base(principal.user_id, version)
        ts, close = downsample_extrema(base.ts_us, base.close, max(1, points // 4))
        return DatasetPreview(
            dataset_id=dataset_id,
            version_id=version.version_id,
            rows=base.rows,
            cadence=version.cadence,
            timestamps_ms=tuple(int(t) for t in ts // 1000),
            close=tuple(float(c) for c in close),
        )

    def _base(self, user_id: str, version: DatasetVersion) -> _Base:
        key = version.version_id
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
            if self._reading[user_id]:
                raise LimitExceeded(
                    "a preview of yours is already being computed; retry when it is done "
                    "(each dataset version is read once, later previews are immediate)",
                )
            if sum(self._reading.values()) >= MAX_READS_IN_FLIGHT:
                raise LimitExceeded(
                    f"{MAX_READS_IN_FLIGHT} dataset previews are being computed; retry in a moment",
                )
            self._reading[user_id] += 1
        try:
            data = self._read(version)
            ts, close = downsample_extrema(
                data.ts_us, data.columns["close"], max(1, BASE_POINTS // 4)
            )
            base = _Base(len(data.ts_us), ts, close)
        finally:
            with self._lock:
                self._reading[user_id] -= 1
        with self._lock:
            self._cache[key] = base
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return base

    def _read(self, version: DatasetVersion) -> VersionData:
        local = self._objects.local_path(version.object_key)
        if local is not None and local.exists():
            return read_version(local, version.data_format)
        root = self._settings.scratch_dir
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=root, prefix="preview-") as work:
            path = Path(work) / "version"
            with path.open("wb") as handle:
                for chunk in self._objects.iter_range(version.object_key):
                    handle.write(chunk)
            return read_version(path, version.data_format)
