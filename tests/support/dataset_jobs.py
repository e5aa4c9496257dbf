"""Dataset jobs without HTTP or Dask: the real services on SQLite and a local object store, a
job queue that only records what it is given, and a real worker context that runs the jobs.

A test submits through the service (create, the PUT's stored body, finalize, import, prepare),
then runs the recorded job with the handler under test and reads back what a user would read.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from backtestd.domain.accounts import Principal
from backtestd.domain.jobs import JobRecord
from backtestd.jobs.context import WorkerContext, build_worker_context
from backtestd.jobs.progress import JobProgress
from backtestd.services.container import Services, build_services
from backtestd.settings import Settings
from backtestd.storage.db.repositories.jobs import JobRepository
from tests.support.held_queue import HeldQueue

CANDLES_START = datetime(2025, 3, 3, tzinfo=UTC)
CANDLE_MINUTES = 180
CANDLE_GAP = range(100, 104)
"""Four missing minutes: one gap of four steps on a 1-minute grid."""


@contextmanager
def dataset_services(settings: Settings) -> Iterator[tuple[Services, WorkerContext]]:
    """The API process's services and a worker's context over the same database and object
    store (SQLite and the local store under ``settings.data_dir`` by default)."""
    built = build_services(settings)
    built.backtests.executor = HeldQueue()
    ctx = build_worker_context(built.settings)
    try:
        yield built, ctx
    finally:
        ctx.engines.close()
        ctx.database.dispose()
        built.close()


def job(ctx: WorkerContext, job_id: str) -> tuple[JobRecord, JobProgress]:
    """The stored job, and the progress reporter a worker hands its handler."""
    with ctx.database.unit_of_work() as uow:
        record = JobRepository(uow.session).get(job_id)
    assert record is not None, job_id
    return record, JobProgress(ctx.database, job_id)


def candle_csv() -> bytes:
    """Three hours of 1-minute candles (ISO timestamps) with one four-minute hole."""
    lines = ["timestamp,open,high,low,close,volume"]
    for minute in range(CANDLE_MINUTES):
        if minute in CANDLE_GAP:
            continue
        close = 100 + 10 * math.sin(minute / 9)
        ts = CANDLES_START + timedelta(minutes=minute)
        lines.append(f"{ts:%Y-%m-%dT%H:%M:%SZ},{close - 0.5},{close + 1},{close - 1},{close},1")
    return ("\n".join(lines) + "\n").encode()


def candle_rows() -> int:
    return CANDLE_MINUTES - len(CANDLE_GAP)


def upload(
    services: Services, who: Principal, dataset_id: str, body: bytes, spool: Path
) -> tuple[str, str]:
    """PUT ``body`` to the dataset's open upload and finalize it: ``(upload id, job id)``."""
    opened = services.dataset_uploads.open_upload(who, dataset_id)
    path = spool / f"{opened.upload_id}.bin"
    path.write_bytes(body)
    services.dataset_uploads.receive_upload(opened.upload_id, path)
    return opened.upload_id, services.dataset_uploads.finalize(who, dataset_id, opened.upload_id)
