"""Dataset previews on real parts (SQLite, the local object store, a worker that ingested the
version): the worker stores the version's preview base, so the API never reads the version;
every answer keeps the series' extremes; versions without a stored base (written before bases
were stored) are read once, their reads bounded per user and in all, and their base stored."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backtestd.datasets.version_file import VersionData
from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import DatasetVersion
from backtestd.errors import LimitExceeded
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.runner import process_job
from backtestd.services.container import Services
from backtestd.services.dataset_preview import DatasetPreviews
from backtestd.settings import Settings
from backtestd.storage.objects.keys import dataset_preview_key
from tests.support.dataset_jobs import dataset_services, upload

ANNA = Principal("preview-anna", "pro")
BORIS = Principal("preview-boris", "pro")
CARLA = Principal("preview-carla", "pro")
ROWS = 30_000
START = datetime(2025, 3, 3, tzinfo=UTC)


def _close(n: int) -> float:
    return 1000 + 100 * math.sin(n / 700) + (50 if n == 12_345 else 0)  # one spike


class CountingPreviews(DatasetPreviews):
    """The real previews, counting (and, when asked, holding) the version reads."""

    def __init__(self, services: Services) -> None:
        super().__init__(services.settings, services.datasets, services.objects)
        self.reads = 0
        self.hold: threading.Event | None = None
        self.reading = threading.Event()

    def _read(self, version: DatasetVersion) -> VersionData:
        self.reads += 1
        self.reading.set()
        if self.hold is not None:
            assert self.hold.wait(timeout=30)
        return super()._read(version)


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[Services, WorkerContext]]:
    with dataset_services(Settings(data_dir=tmp_path / "data")) as built:
        yield built


def _ready_dataset(
    parts: tuple[Services, WorkerContext], who: Principal, name: str, spool: Path
) -> str:
    services, ctx = parts
    dataset_id = services.datasets.create(who, name, "BTC/USDT").dataset.dataset_id
    lines = ["timestamp,close"]
    lines += [
        f"{START + timedelta(seconds=n):%Y-%m-%dT%H:%M:%SZ},{_close(n)!r}" for n in range(ROWS)
    ]
    _, job_id = upload(services, who, dataset_id, ("\n".join(lines) + "\n").encode(), spool)
    assert process_job(ctx, job_id) == "Completed"
    return dataset_id


def _without_stored_base(services: Services, who: Principal, dataset_id: str) -> None:
    """Make the version look like one written before preview bases were stored."""
    version = services.datasets.get(who, dataset_id).version
    assert version is not None
    key = dataset_preview_key(version.object_key)
    assert services.objects.get(key) is not None  # the worker stored it
    services.objects.delete(key)


def test_the_api_reads_no_version_and_every_cut_keeps_the_extremes(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    previews = CountingPreviews(parts[0])
    dataset_id = _ready_dataset(parts, ANNA, "long", tmp_path)
    closes = [_close(n) for n in range(ROWS)]

    answers = [previews.preview(ANNA, dataset_id, points) for points in range(8, 20_000, 411)]

    assert previews.reads == 0  # the base the ingest stored is all the API reads
    for points, answer in zip(range(8, 20_000, 411), answers, strict=True):
        assert answer.rows == ROWS
        assert answer.downsampled
        assert len(answer.close) <= points
        assert max(answer.close) == max(closes)  # the spike survives every cut
        assert min(answer.close) == min(closes)
        assert list(answer.timestamps_ms) == sorted(answer.timestamps_ms)


def test_reads_of_uncached_versions_are_bounded_per_user_and_in_all(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    previews = CountingPreviews(parts[0])
    first = _ready_dataset(parts, ANNA, "first", tmp_path)
    second = _ready_dataset(parts, ANNA, "second", tmp_path)
    boris = _ready_dataset(parts, BORIS, "boris", tmp_path)
    carla = _ready_dataset(parts, CARLA, "carla", tmp_path)
    for who, dataset_id in ((ANNA, first), (ANNA, second), (BORIS, boris), (CARLA, carla)):
        _without_stored_base(parts[0], who, dataset_id)
    gate = threading.Event()
    previews.hold = gate
    readers = [
        threading.Thread(target=previews.preview, args=(ANNA, first, 100)),
        threading.Thread(target=previews.preview, args=(BORIS, boris, 100)),
    ]
    for reader in readers:
        previews.reading.clear()
        reader.start()
        assert previews.reading.wait(timeout=30)

    with pytest.raises(LimitExceeded, match="a preview of yours is already being computed"):
        previews.preview(ANNA, second, 100)
    with pytest.raises(LimitExceeded, match="2 dataset previews are being computed"):
        previews.preview(CARLA, carla, 100)

    gate.set()
    for reader in readers:
        reader.join(timeout=30)
    previews.hold = None
    assert previews.preview(ANNA, second, 100).rows == ROWS
    assert previews.preview(CARLA, carla, 100).rows == ROWS
    assert previews.preview(ANNA, first, 50).rows == ROWS  # cached: no read
    assert previews.reads == 4
    another_replica = CountingPreviews(parts[0])
    assert another_replica.preview(BORIS, boris, 100).rows == ROWS
    assert another_replica.reads == 0  # the base computed once was stored for every replica
