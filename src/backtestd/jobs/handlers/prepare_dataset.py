"""Prepare on ``exchangeId=user``: one dataset version's rows over ``[from, to)`` become the
same engine columns a managed prepare publishes, so execute and sweep cannot tell them apart.

``ticker``: every row is a tick (``last`` = ``close``; a missing ``bid``/``ask`` is the close,
missing sizes and volume are 0). ``kline``: candles aggregated to the cadence with the same
epoch-aligned buckets as managed data; a version without ``open``/``high``/``low`` builds each
bar from its closes (open = first, high = max, low = min, close = last close of the bucket;
all four are the close at the version's own cadence), as the upload format requires only
``timestamp`` and ``close``. Coverage is reported on the cadence grid: ``gaps``,
``largestGapSteps`` and ``coverageRatio`` (rows / expected steps; absent for ``rt``).
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backtestd.datasets.version_file import VersionData, read_version_range
from backtestd.domain.backtest_results import PrepareOutcome
from backtestd.domain.backtests import DatasetVersionRef, PreparedManifest, PrepareSpec
from backtestd.domain.datasets import DatasetVersion
from backtestd.domain.jobs import JobRecord
from backtestd.domain.marketdata import (
    ASK_SIZE,
    BID_SIZE,
    CLOSE_TS,
    RUN_COLUMNS,
    DataType,
    column_dtype,
)
from backtestd.domain.serial import to_stored
from backtestd.engine.cadence import CADENCE_MS
from backtestd.engine.prepare import aggregate_klines
from backtestd.jobs import prepared_cache
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.progress import JobFailed, JobProgress
from backtestd.storage.db.repositories.datasets import DatasetRepository
from backtestd.storage.objects.keys import prepared_column_key, prepared_manifest_key

GAP_FACTOR = 1.5
"""An interval longer than this many steps is a gap (as at ingest, see datasets/cadence.py)."""


def _load(ctx: WorkerContext, version: DatasetVersion, start_us: int, end_us: int) -> VersionData:
    local = ctx.objects.local_path(version.object_key)
    if local is not None and local.exists():
        return read_version_range(local, version.data_format, start_us, end_us)
    root = ctx.settings.scratch_dir
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix="prepare-") as work:
        path = Path(work) / "version"
        with path.open("wb") as handle:
            for chunk in ctx.objects.iter_range(version.object_key):
                handle.write(chunk)
        return read_version_range(path, version.data_format, start_us, end_us)


def _column(data: VersionData, name: str, fallback: npt.NDArray[np.float64]) -> np.ndarray:
    return data.columns.get(name, fallback)


def feed_columns(data: VersionData, feed: DataType, cadence_ms: int) -> dict[str, np.ndarray]:
    """The engine's columns for ``feed`` from a version's rows (``ts`` in ms)."""
    ts_ms = data.ts_us // 1000
    close = data.columns["close"]
    zeros = np.zeros_like(close)
    if feed is DataType.TICKER:
        return {
            "ts": ts_ms,
            "bid": _column(data, "bid", close),
            BID_SIZE: _column(data, BID_SIZE, zeros),
            "ask": _column(data, "ask", close),
            ASK_SIZE: _column(data, ASK_SIZE, zeros),
            "last": close,
            "volume": _column(data, "volume", zeros),
        }
    bars = aggregate_klines(
        ts_ms,
        _column(data, "open", close),
        _column(data, "high", close),
        _column(data, "low", close),
        close,
        _column(data, "volume", zeros),
        cadence_ms,
    )
    bars[CLOSE_TS] = bars["ts"] + np.int64(cadence_ms - 1)
    return bars


def grid_report(
    ts_ms: np.ndarray, step_ms: int, start: datetime, end: datetime
) -> tuple[int, int, float | None]:
    """``gaps``, ``largest_gap_steps`` and the coverage ratio of rows on a grid of ``step_ms``
    (no ratio without a grid)."""
    if step_ms <= 0:
        return 0, 0, None
    intervals = np.diff(ts_ms)
    wide = intervals[intervals > GAP_FACTOR * step_ms]
    largest = int(np.max(np.rint(wide / step_ms)) - 1) if wide.size else 0
    expected = max(int((end - start).total_seconds() * 1000) // step_ms, 1)
    return int(wide.size), largest, min(1.0, round(ts_ms.size / expected, 6))


def run_dataset_prepare(
    ctx: WorkerContext,
    job: JobRecord,
    spec: PrepareSpec,
    dataset: DatasetVersionRef,
    progress: JobProgress,
) -> PrepareOutcome:
    version_id = dataset.version_id
    with ctx.database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        version = repo.version_of(job.user_id, version_id)
        live = repo.of(job.user_id, dataset.dataset_id) is not None
    if version is None:
        raise JobFailed(f"dataset version {version_id} no longer exists")
    if not live:
        # Its files stay a grace period for work already reading them, not for new work: a
        # prepare still queued (or resubmitted after its worker died) stops here.
        raise JobFailed(
            f"dataset {dataset.dataset_id} was deleted before this prepare ran; nothing was "
            "prepared"
        )
    progress.size(1)
    start, end = spec.start, spec.end
    data = _load(ctx, version, int(start.timestamp() * 1e6), int(end.timestamp() * 1e6))
    cadence_ms = spec.cadence_ms
    feed = spec.data_type
    columns = feed_columns(data, feed, cadence_ms)
    for name in RUN_COLUMNS[feed]:
        array = np.ascontiguousarray(columns[name], dtype=column_dtype(name))
        ctx.objects.put(prepared_column_key(job.job_id, name), array.tobytes())
    ts = columns["ts"]
    step = cadence_ms if feed is DataType.KLINE else CADENCE_MS.get(version.cadence, 0)
    gaps, largest, ratio = grid_report(ts, step, start, end)
    outcome = PrepareOutcome(
        data_from=_ms_datetime(int(ts[0])) if ts.size else None,
        data_to=_ms_datetime(int(ts[-1])) if ts.size else None,
        coverage_ratio=ratio,
        cadence=spec.cadence,
        gaps=gaps,
        largest_gap_steps=largest,
    )
    manifest = PreparedManifest(job.job_id, spec, spec.instrument, int(ts.size), RUN_COLUMNS[feed])
    ctx.objects.put(prepared_manifest_key(job.job_id), json.dumps(to_stored(manifest)).encode())
    prepared_cache.stored(ctx, job, manifest)
    progress.update(1)
    return outcome


def _ms_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)
