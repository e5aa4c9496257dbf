"""A ready dataset's close series, downsampled for a preview chart (the dashboard's dataset
view). Versions are immutable, so a preview is computed once per (version, points) and kept."""

from __future__ import annotations

import tempfile
from collections import OrderedDict
from pathlib import Path
from threading import Lock

from backtestd.datasets.preview import downsample_extrema
from backtestd.datasets.version_file import VersionData, read_version
from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import DatasetPreview, DatasetStatus, DatasetVersion
from backtestd.errors import Conflict
from backtestd.services.datasets import DatasetService
from backtestd.settings import Settings
from backtestd.storage.objects.store import ObjectStore

CACHE_SIZE = 32


class DatasetPreviews:
    def __init__(self, settings: Settings, datasets: DatasetService, objects: ObjectStore) -> None:
        self._settings = settings
        self._datasets = datasets
        self._objects = objects
        self._cache: OrderedDict[tuple[str, int], DatasetPreview] = OrderedDict()
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
        key = (version.version_id, points)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        data = self._read(version)
        ts, close = downsample_extrema(data.ts_us, data.columns["close"], max(1, points // 4))
        preview = DatasetPreview(
            dataset_id=dataset_id,
            version_id=version.version_id,
            rows=len(data.ts_us),
            cadence=version.cadence,
            timestamps_ms=tuple(int(t) for t in ts // 1000),
            close=tuple(float(c) for c in close),
        )
        with self._lock:
            self._cache[key] = preview
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return preview

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
