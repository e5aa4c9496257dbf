"""Prepare: read the hourly store over ``[from, to)`` and publish one immutable dataset.

The dataset is a set of raw little-endian column files in the engine's feed layout plus a
manifest, written last: execute and sweep map the columns directly and never read raw hours.
Coverage is reported per hour (``hoursWithoutData`` with a rationale).
"""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np

from backtestd.domain.backtest_results import PrepareOutcome
from backtestd.domain.backtests import PreparedManifest, PrepareSpec
from backtestd.domain.jobs import JobRecord
from backtestd.domain.marketdata import (
    RUN_COLUMNS,
    DataKind,
    DataType,
    HourFrame,
    Instrument,
    column_dtype,
    hour_start,
    hours_between,
)
from backtestd.domain.serial import to_stored
from backtestd.engine.cadence import width_of
from backtestd.engine.coverage import Slot, closed_slots, coverage_of
from backtestd.engine.prepare import assemble
from backtestd.jobs import prepared_cache
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.handlers.prepare_dataset import run_dataset_prepare
from backtestd.jobs.progress import JobProgress
from backtestd.storage.db.repositories.market import MarketHourRepository
from backtestd.storage.objects.keys import prepared_column_key, prepared_manifest_key

PROGRESS_EVERY_HOURS = 24


def _clip(frame: HourFrame, from_ms: int, to_ms: int) -> HourFrame:
    ts = frame.columns["ts"]
    keep = (ts >= from_ms) & (ts < to_ms)
    if bool(keep.all()):
        return frame
    return HourFrame(frame.kind, frame.hour, {k: v[keep] for k, v in frame.columns.items()})


def _source_shape(
    ctx: WorkerContext, exchange_id: str, instrument: Instrument, kind: DataKind
) -> tuple[int | None, frozenset[Slot]]:
    """The source's kline bar width and its weekly closures, from what the store holds.

    A generating source (``sim``) trades around the clock at its own bar width; an ingested
    instrument's width is the coarsest interval it was ingested at, and its closures are the
    weekly slots its history never trades in.
    """
    source = ctx.store.sources.get(exchange_id)
    if source is not None:
        return width_of(source.native_kline_interval), frozenset()
    with ctx.database.unit_of_work() as uow:
        repo = MarketHourRepository(uow.session)
        labels = repo.intervals(exchange_id, instrument.symbol, kind.value)
        traded = repo.hours_with_rows(exchange_id, instrument.symbol, kind.value)
    native = max((width_of(label) for label in labels), default=None)
    return native, closed_slots(traded)


def run_prepare(ctx: WorkerContext, job: JobRecord, progress: JobProgress) -> PrepareOutcome:
    spec = job.spec_as(PrepareSpec)
    if spec.dataset is not None:
        return run_dataset_prepare(ctx, job, spec, spec.dataset, progress)
    start, end = spec.start, spec.end
    instrument = Instrument.parse(spec.instrument)
    kind = DataType(job.data_type).kind
    last_hour = hour_start(end) if end > hour_start(end) else hour_start(end) - timedelta(hours=1)
    hours = hours_between(start, last_hour + timedelta(hours=1))
    from_ms, to_ms = int(start.timestamp() * 1000), int(end.timestamp() * 1000)
    progress.size(len(hours))
    frames: list[HourFrame] = []
    rows: list[int | None] = []
    for index, hour in enumerate(hours):
        if index % PROGRESS_EVERY_HOURS == 0:
            progress.update(index)
        frame = ctx.store.read_frame(job.exchange_id, instrument, kind, hour)
        if frame is None:
            rows.append(None)
            continue
        clipped = _clip(frame, from_ms, to_ms)
        rows.append(clipped.rows)
        if clipped.rows:
            frames.append(clipped)
    progress.update(len(hours))
    cadence_ms = spec.cadence_ms
    columns = assemble(job.data_type, frames, cadence_ms)
    first_ts = int(frames[0].columns["ts"][0]) if frames else None
    last_ts = int(frames[-1].columns["ts"][-1]) if frames else None
    native_ms, closed = _source_shape(ctx, job.exchange_id, instrument, kind)
    coverage = coverage_of(
        hours,
        rows,
        low_activity_rows=ctx.settings.low_activity_rows,
        first_ts=first_ts,
        last_ts=last_ts,
        kind=job.data_type,
        native_ms=native_ms,
        closed=closed,
    )
    feed = DataType(job.data_type)
    for name in RUN_COLUMNS[feed]:
        data = np.ascontiguousarray(columns[name], dtype=column_dtype(name))
        ctx.objects.put(prepared_column_key(job.job_id, name), data.tobytes())
    outcome = PrepareOutcome(
        data_from=coverage.data_from,
        data_to=coverage.data_to,
        coverage_ratio=coverage.ratio,
        total_hours=coverage.total_hours,
        hours_with_data=coverage.hours_with_data,
        closed_hours=coverage.closed_hours,
        hours_without_data=tuple(coverage.without_data),
    )
    manifest = PreparedManifest(
        job.job_id, spec, instrument.symbol, int(len(columns["ts"])), RUN_COLUMNS[feed]
    )
    ctx.objects.put(prepared_manifest_key(job.job_id), json.dumps(to_stored(manifest)).encode())
    prepared_cache.stored(ctx, job, manifest)
    return outcome
