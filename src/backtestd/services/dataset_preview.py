"""A ready dataset's close series, downsampled for a preview chart (the dashboard's dataset
view).

Every preview is cut from the version's preview base (``datasets/preview.py``: at most
``BASE_POINTS`` points, extremes kept), which the worker that wrote the version stored beside
it; reading it is one small object, so a preview never reads a version in the API process.
Bases are cached per version, so every ``points`` a request asks for costs microseconds.

Versions written before bases were stored (or whose base could not be stored) are read once
here and their base stored for next time; those reads are bounded: one in flight per user and
``MAX_READS_IN_FLIGHT`` in all, so one user asking for many previews of a large dataset at once
gets 429s instead of holding the API for everyone (issue 26 measured 48 concurrent previews with
different ``points`` timing the API out for three minutes).
"""

from __future__ import annotations

import tempfile
from collections import Counter, OrderedDict
from pathlib import Path
from threading import Lock

from backtestd.datasets.preview import BASE_POINTS, PreviewBase, downsample_extrema
from backtestd.datasets.version_file import VersionData, read_version
from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import DatasetPreview, DatasetStatus, DatasetVersion
from backtestd.errors import Conflict, LimitExceeded
from backtestd.services.datasets import DatasetService
from backtestd.settings import Settings
from backtestd.storage.objects.keys import dataset_preview_key
from backtestd.storage.objects.store import ObjectStore

CACHE_SIZE = 32
MAX_READS_IN_FLIGHT = 2

__all__ = ["BASE_POINTS", "DatasetPreviews"]


class DatasetPreviews:
    def __init__(self, settings: Settings, datasets: DatasetService, objects: ObjectStore) -> None:
        self._settings = settings
        self._datasets = datasets
        self._objects = objects
        self._cache: OrderedDict[str, PreviewBase] = OrderedDict()
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

    def _base(self, user_id: str, version: DatasetVersion) -> PreviewBase:
        key = version.version_id
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        stored = self._objects.get(dataset_preview_key(version.object_key))
        if stored is not None:
            return self._remember(key, PreviewBase.decode(stored))
        with self._lock:
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
            base = PreviewBase.of(self._read(version))
        finally:
            with self._lock:
                self._reading[user_id] -= 1
        self._objects.put(dataset_preview_key(version.object_key), base.encode())
        return self._remember(key, base)

    def _remember(self, key: str, base: PreviewBase) -> PreviewBase:
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
