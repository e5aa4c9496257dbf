"""Prepared data as a bounded, least-recently-used cache.

A completed prepare's columns (about 152 MB for 30 days of tickers) used to stay for ever, so
anyone could fill the disk by preparing ranges. They are a cache now, as generated ``sim``
hours are (``marketdata/generated_cache.py``):

* the ledger (``prepared_data``: bytes and last use per prepare) is written when a prepare
  stores its columns and touched whenever an execute or sweep shard loads them (a running
  shard touches it again every ``TOUCH_SECONDS``);
* after a prepare stores its columns, if the ledger's total is over
  ``BACKTESTD_PREPARED_MAX_BYTES``, prepares unused for at least
  ``BACKTESTD_PREPARED_RECLAIM_GRACE_SECONDS`` lose their columns down to ``LOW_WATER`` of the
  budget, the least recently used first among those of the user holding the most above a fair
  share of the budget (``jobs/fair_eviction.py``), so one user's prepares never push out
  another's idle one while they hold more (the manifest stays: it is tiny, and it says what the
  columns held);
* an execute or sweep on a prepare whose columns were reclaimed rebuilds them first, by running
  the prepare again for its stored spec (generation and stored hours are deterministic), and
  checks that the rebuilt data has the rows the prepare reported; when it has not (a ``sim``
  range that has since left the coverage window, a dataset version deleted since) the run fails
  saying to prepare again.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from datetime import timedelta

from backtestd.domain.backtests import PreparedManifest
from backtestd.domain.jobs import JobRecord, JobStatus
from backtestd.domain.marketdata import RUN_COLUMNS, DataType
from backtestd.domain.serial import from_stored
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.fair_eviction import evict_fairly
from backtestd.jobs.progress import JobFailed, JobProgress
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.prepared import PreparedDataRepository
from backtestd.storage.objects.keys import prepared_column_key, prepared_manifest_key

log = logging.getLogger(__name__)

LOW_WATER = 0.9
EVICTION_BATCH = 100
TOUCH_SECONDS = 60.0

_locks_guard = threading.Lock()
_locks: dict[str, threading.Lock] = {}
_touched: dict[str, float] = {}


def _lock_for(prepare_id: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(prepare_id, threading.Lock())


def columns_present(ctx: WorkerContext, manifest: PreparedManifest) -> bool:
    return all(
        ctx.objects.exists(prepared_column_key(manifest.job_id, name)) for name in manifest.columns
    )


def stored(ctx: WorkerContext, job: JobRecord, manifest: PreparedManifest) -> None:
    """A prepare has just stored its columns: record them, then reclaim if over budget (never
    these columns: they were stored to be used, by the run that rebuilt them or the execute
    that follows a prepare)."""
    size = sum(
        ctx.objects.size(prepared_column_key(job.job_id, name)) or 0 for name in manifest.columns
    )
    with ctx.database.unit_of_work() as uow:
        PreparedDataRepository(uow.session).record(job.job_id, job.user_id, size, ctx.clock())
    reclaim(ctx, keep=job.job_id)


def used(ctx: WorkerContext, prepare_id: str, force: bool = False) -> None:
    """Refresh a prepare's place in the LRU order (at most every ``TOUCH_SECONDS`` per
    process, unless ``force``)."""
    now = time.monotonic()
    with _locks_guard:
        last = _touched.get(prepare_id)
        if not force and last is not None and now - last < TOUCH_SECONDS:
            return
        if len(_touched) > 4096:
            _touched.clear()
        _touched[prepare_id] = now
    with ctx.database.unit_of_work() as uow:
        PreparedDataRepository(uow.session).touch(prepare_id, ctx.clock())


def reclaim(ctx: WorkerContext, keep: str | None = None) -> int:
    """While the ledger is over budget, drop the columns of idle prepares (but ``keep``), least
    recently used first among the prepares of the user holding the most above a fair share
    (``jobs/fair_eviction.py``: one user preparing a lot loses their own columns before another
    user's idle prepare goes); returns how many prepares lost their columns."""
    budget = ctx.settings.prepared_max_bytes
    cutoff = ctx.clock() - timedelta(seconds=ctx.settings.prepared_reclaim_grace_seconds)
    with ctx.database.unit_of_work() as uow:
        held = PreparedDataRepository(uow.session).bytes_by_user()
    if sum(held.values()) <= budget:
        return 0

    def oldest(user_id: str) -> list[tuple[str, int]]:
        with ctx.database.unit_of_work() as uow:
            repo = PreparedDataRepository(uow.session)
            found = repo.least_recently_used(user_id, cutoff, EVICTION_BATCH)
        return [(job_id, size) for job_id, size in found if job_id != keep]

    def evict(job_id: str) -> bool:
        with ctx.database.unit_of_work() as uow:
            dropped = PreparedDataRepository(uow.session).forget_if_unused_since(job_id, cutoff)
            prepare = JobRepository(uow.session).get(job_id)
        if dropped:
            columns = RUN_COLUMNS[DataType(prepare.data_type)] if prepare is not None else ()
            for name in columns:
                ctx.objects.delete(prepared_column_key(job_id, name))
        return dropped

    removed = evict_fairly(held, budget, int(budget * LOW_WATER), oldest, evict)
    log.info(
        "prepared data over %d bytes: reclaimed the columns of %d prepares", budget, len(removed)
    )
    return len(removed)


class RebuildFailed(Exception):
    """The reclaimed columns cannot be rebuilt as they were; the message says why."""


def rebuild(ctx: WorkerContext, manifest: PreparedManifest) -> None:
    """Rebuild a prepare's reclaimed columns (one thread at a time per prepare in a process;
    two processes rebuilding at once write identical objects)."""
    # Imported here: the prepare handler records what it stores through this module.
    from backtestd.jobs.handlers.prepare import run_prepare

    prepare_id = manifest.job_id
    with _lock_for(prepare_id):
        if columns_present(ctx, manifest):
            return
        with ctx.database.unit_of_work() as uow:
            job = JobRepository(uow.session).get(prepare_id)
        if job is None or job.status is not JobStatus.COMPLETED:
            raise RebuildFailed(f"prepare {prepare_id} no longer exists; prepare again")
        original = ctx.objects.get(prepared_manifest_key(prepare_id))
        started = time.perf_counter()
        try:
            run_prepare(ctx, job, JobProgress(ctx.database, prepare_id))
        except JobFailed as exc:
            raise RebuildFailed(
                f"the prepared data of {prepare_id} was reclaimed (unused for a while) and "
                f"cannot be rebuilt: {exc}; prepare the range again"
            ) from exc
        rows = _manifest_rows(ctx, prepare_id)
        if rows != manifest.rows:
            for name in manifest.columns:
                ctx.objects.delete(prepared_column_key(prepare_id, name))
            if original is not None:
                ctx.objects.put(prepared_manifest_key(prepare_id), original)
            with ctx.database.unit_of_work() as uow:
                PreparedDataRepository(uow.session).forget(prepare_id)
            raise RebuildFailed(
                f"the prepared data of {prepare_id} was reclaimed (unused for a while) and its "
                f"source no longer holds the same data ({rows:,} rows instead of "
                f"{manifest.rows:,}); prepare the range again"
            )
        log.info(
            "rebuilt the reclaimed columns of %s (%d rows) in %.1f s",
            prepare_id,
            rows,
            time.perf_counter() - started,
        )


def _manifest_rows(ctx: WorkerContext, prepare_id: str) -> int:
    blob = ctx.objects.get(prepared_manifest_key(prepare_id))
    if blob is None:
        return -1
    return from_stored(PreparedManifest, json.loads(blob)).rows
