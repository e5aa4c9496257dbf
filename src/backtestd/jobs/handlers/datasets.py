"""Dataset jobs: ingest an uploaded file, or fetch an exchange range, into a new version.

Both end in :func:`publish`: the version file goes to the object store, then one transaction
counts its bytes in the storage pool (refused over the tier's total storage), adds the version,
moves the session to ``ready`` and, with it, the dataset to ``ready`` on the new current
version. A refusal moves the session and the dataset to ``failed`` with the reason and leaves
every earlier version as it was. The dataset follows its session: a session that can no longer
move (a resubmitted job whose session already ended) moves no dataset either, so a rerun never
puts back an older version or a stale error. A job whose session already ended answers what
the session ended with, without redoing the work.
"""

from __future__ import annotations

import logging
import tempfile
from datetime import timedelta
from pathlib import Path

import numpy as np

from backtestd.datasets.ingest import IngestError, IngestResult, build_version, ingest_upload
from backtestd.datasets.preview import PreviewBase
from backtestd.datasets.version_file import read_version
from backtestd.domain.datasets import (
    DatasetImportSpec,
    DatasetIngestSpec,
    DatasetSession,
    DatasetStatus,
    DatasetVersion,
    IllegalTransition,
    SessionStatus,
    VersionOutcome,
)
from backtestd.domain.jobs import JobRecord
from backtestd.domain.marketdata import (
    ASK_SIZE,
    BID_SIZE,
    DataKind,
    DataType,
    Instrument,
    hour_start,
    hours_between,
)
from backtestd.domain.quotas import storage_overflow
from backtestd.domain.timefmt import iso_z
from backtestd.engine.prepare import aggregate_klines
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.progress import JobFailed, JobProgress
from backtestd.storage.db.engine import UnitOfWork
from backtestd.storage.db.repositories.datasets import DatasetRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from backtestd.storage.objects.keys import dataset_preview_key, dataset_version_key

log = logging.getLogger(__name__)

DECOMPRESSED_FACTOR = 4
"""An upload may unpack to this many times ``maxDatasetBytes`` (a CSV shrinks as lastra)."""
PROGRESS_EVERY_HOURS = 6


class _Refused(Exception):
    """Raised inside the publishing transaction to roll it back with a user-facing reason."""


def _work_dir(ctx: WorkerContext) -> Path:
    root = ctx.settings.scratch_dir
    root.mkdir(parents=True, exist_ok=True)
    return root


DatasetJobSpec = DatasetIngestSpec | DatasetImportSpec


def fail(ctx: WorkerContext, job: JobRecord, message: str) -> JobFailed:
    """Move the session and with it the dataset to failed (current version untouched); the
    error to raise."""
    spec = _spec(job)
    with ctx.database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        if repo.move_session(_session_id(spec), SessionStatus.FAILED, ctx.clock(), error=message):
            repo.move_dataset(spec.dataset_id, DatasetStatus.FAILED, error=message)
    return JobFailed(message)


def _session(ctx: WorkerContext, spec: DatasetJobSpec) -> DatasetSession:
    with ctx.database.unit_of_work() as uow:
        found = DatasetRepository(uow.session).session_by_id(_session_id(spec))
    if found is None:
        raise JobFailed("the upload session no longer exists")
    return found


def _ended(ctx: WorkerContext, job: JobRecord, session: DatasetSession) -> VersionOutcome | None:
    """What a session that already ended answered (a resubmitted job): its version, or its
    failure raised again; None while it has not ended."""
    if session.status is SessionStatus.FAILED:
        raise JobFailed(session.error or "the ingest failed")
    if session.status is not SessionStatus.READY or session.version_id is None:
        return None
    with ctx.database.unit_of_work() as uow:
        version = DatasetRepository(uow.session).version_of(job.user_id, session.version_id)
    rows = version.rows if version is not None else 0
    return VersionOutcome(session.dataset_id, session.version_id, rows)


def _spec(job: JobRecord) -> DatasetJobSpec:
    spec = job.spec
    if not isinstance(spec, DatasetIngestSpec | DatasetImportSpec):
        raise TypeError(f"job {job.job_id} is not a dataset job")
    return spec


def _session_id(spec: DatasetJobSpec) -> str:
    return spec.upload_id if isinstance(spec, DatasetIngestSpec) else spec.import_id


def publish(ctx: WorkerContext, job: JobRecord, result: IngestResult) -> VersionOutcome:
    spec = _spec(job)
    cap = spec.limits.max_dataset_bytes
    if result.bytes > cap:
        raise fail(
            ctx,
            job,
            f"the stored version would be {result.bytes:,} bytes, over the {spec.limits.tier} "
            f"tier's maxDatasetBytes of {cap:,}; upload a shorter range",
        )
    dataset_id = spec.dataset_id
    version_id = f"dsv_{job.job_id}"
    key = dataset_version_key(job.user_id, dataset_id, version_id, result.data_format.value)
    ctx.objects.put_file(key, result.path)
    _store_preview_base(ctx, key, result)
    now = ctx.clock()
    version = DatasetVersion(
        version_id=version_id,
        dataset_id=dataset_id,
        user_id=job.user_id,
        object_key=key,
        data_format=result.data_format,
        bytes=result.bytes,
        rows=result.rows,
        cadence=result.cadence,
        timestamp_unit=result.timestamp_unit,
        gaps=result.gaps,
        largest_gap_steps=result.largest_gap_steps,
        data_from=result.data_from,
        data_to=result.data_to,
        columns=result.columns,
        created_at=now,
    )
    try:
        with ctx.database.unit_of_work() as uow:
            _commit_version(uow, job, spec, version)
    except _Refused as exc:
        ctx.objects.delete(key)
        raise fail(ctx, job, str(exc)) from None
    return VersionOutcome(dataset_id, version_id, result.rows)


def _store_preview_base(ctx: WorkerContext, version_key: str, result: IngestResult) -> None:
    """Compute the version's preview base here, on the worker, while its file is at hand, so
    the API never reads a whole version for a preview. A failure only costs the first preview
    a bounded read in the API (``services/dataset_preview.py``), so it is logged, not raised."""
    try:
        base = PreviewBase.of(read_version(result.path, result.data_format))
        ctx.objects.put(dataset_preview_key(version_key), base.encode())
    except Exception:
        log.warning("could not store the preview base of %s", version_key, exc_info=True)


def _commit_version(
    uow: UnitOfWork, job: JobRecord, spec: DatasetJobSpec, version: DatasetVersion
) -> None:
    repo = DatasetRepository(uow.session)
    usage = UsageRepository(uow.session)
    usage.lock_user(job.user_id)
    dataset = repo.of(job.user_id, version.dataset_id)
    if dataset is None:
        raise _Refused("the dataset was deleted before its ingest finished")
    if repo.version_of(job.user_id, version.version_id) is None:
        stored = repo.version_bytes(version.dataset_id) + version.bytes
        usage.record(version.dataset_id, job.user_id, "dataset", stored, version.created_at)
        problem = storage_overflow(
            usage.usage_of(job.user_id),
            spec.limits.max_total_storage_bytes,
            spec.limits.tier,
            version.bytes,
            "this version",
        )
        if problem:
            raise _Refused(problem)
        repo.add_version(version)
    session_id = _session_id(spec)
    at = version.created_at
    if not repo.move_session(session_id, SessionStatus.READY, at, version_id=version.version_id):
        # Only this job moves an ingesting session; _ended answered any that had ended.
        raise IllegalTransition(f"session {session_id} is no longer ingesting")
    repo.move_dataset(
        dataset.dataset_id,
        DatasetStatus.READY,
        kind=version.kind,
        current_version_id=version.version_id,
        updated_at=at,
    )


def run_dataset_ingest(ctx: WorkerContext, job: JobRecord, progress: JobProgress) -> VersionOutcome:
    spec = job.spec_as(DatasetIngestSpec)
    session = _session(ctx, spec)
    ended = _ended(ctx, job, session)
    if ended is not None:
        return ended
    upload_key = session.object_key
    progress.size(1)
    with tempfile.TemporaryDirectory(dir=_work_dir(ctx), prefix="ingest-") as work:
        work_dir = Path(work)
        source = ctx.objects.local_path(upload_key)
        if source is None or not source.exists():
            source = work_dir / "upload.bin"
            with source.open("wb") as handle:
                for chunk in ctx.objects.iter_range(upload_key):
                    handle.write(chunk)
        cap = spec.limits.max_dataset_bytes * DECOMPRESSED_FACTOR
        try:
            result = ingest_upload(source, work_dir, cap, spec.limits.max_rows)
        except IngestError as exc:
            raise fail(ctx, job, str(exc)) from None
        answer = publish(ctx, job, result)
    ctx.objects.delete(upload_key)
    progress.update(1)
    return answer


# -- imports ---------------------------------------------------------------------------------


def _fetch(
    ctx: WorkerContext, job: JobRecord, progress: JobProgress
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The range's rows from the exchange's hourly store, as import columns (ts in ms)."""
    spec = job.spec_as(DatasetImportSpec)
    start, end = spec.start, spec.end
    instrument = Instrument.parse(spec.instrument)
    kind = spec.data_kind
    last_hour = hour_start(end - timedelta(microseconds=1))
    hours = hours_between(start, last_hour + timedelta(hours=1))
    progress.size(len(hours))
    parts: dict[str, list[np.ndarray]] = {}
    from_ms, to_ms = int(start.timestamp() * 1000), int(end.timestamp() * 1000)
    for index, hour in enumerate(hours):
        if index % PROGRESS_EVERY_HOURS == 0:
            progress.update(index)
        frame = ctx.store.read_frame(spec.exchange, instrument, kind, hour)
        if frame is None:
            continue
        ts = frame.columns["ts"]
        keep = (ts >= from_ms) & (ts < to_ms)
        for name, column in frame.columns.items():
            parts.setdefault(name, []).append(np.asarray(column)[keep])
    if not parts or not sum(len(p) for p in parts["ts"]):
        raise fail(
            ctx,
            job,
            f"{spec.exchange} has no {DataType.of_kind(kind)} data for {spec.instrument} "
            f"between {iso_z(start)} and {iso_z(end)}",
        )
    progress.update(len(hours))
    columns = {name: np.concatenate(chunks) for name, chunks in parts.items()}
    return columns.pop("ts").astype(np.int64), columns


def _import_columns(
    spec: DatasetImportSpec, ts_ms: np.ndarray, raw: dict[str, np.ndarray]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Map store columns to dataset columns; with a cadence, bars of that width."""
    if spec.data_kind is DataKind.KLINES:
        bars = {name: raw[name] for name in ("open", "high", "low", "close", "volume")}
    else:
        last = raw["last"]
        bars = {"open": last, "high": last, "low": last, "close": last, "volume": raw["volume"]}
    cadence_ms = spec.cadence_ms
    if cadence_ms:
        out = aggregate_klines(
            ts_ms,
            bars["open"],
            bars["high"],
            bars["low"],
            bars["close"],
            bars["volume"],
            int(cadence_ms),
        )
        ts_ms = out.pop("ts")
        return ts_ms, out
    if spec.data_kind is DataKind.KLINES:
        return ts_ms, bars
    values = {"close": raw["last"], "volume": raw["volume"]}
    values.update({name: raw[name] for name in ("bid", BID_SIZE, "ask", ASK_SIZE)})
    return ts_ms, values


def run_dataset_import(ctx: WorkerContext, job: JobRecord, progress: JobProgress) -> VersionOutcome:
    spec = job.spec_as(DatasetImportSpec)
    ended = _ended(ctx, job, _session(ctx, spec))
    if ended is not None:
        return ended
    ts_ms, raw = _fetch(ctx, job, progress)
    with ctx.database.unit_of_work() as uow:
        # Already ingesting when a resubmitted job fetched again: it stays so.
        DatasetRepository(uow.session).move_session(
            spec.import_id, SessionStatus.INGESTING, ctx.clock()
        )
    ts_ms, values = _import_columns(spec, ts_ms, raw)
    # The store may hold two ticks in one millisecond; a dataset's rows rise strictly.
    keep = np.append(ts_ms[1:] != ts_ms[:-1], True) if ts_ms.size else ts_ms.astype(bool)
    ts_us = ts_ms[keep].astype(np.int64) * 1000
    values = {name: np.asarray(col, dtype=np.float64)[keep] for name, col in values.items()}
    with tempfile.TemporaryDirectory(dir=_work_dir(ctx), prefix="import-") as work:
        try:
            target = Path(work) / "version.lastra"
            result = build_version(ts_us, values, target, spec.limits.max_rows)
        except IngestError as exc:
            raise fail(ctx, job, str(exc)) from None
        return publish(ctx, job, result)
