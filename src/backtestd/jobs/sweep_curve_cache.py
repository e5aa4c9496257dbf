"""Stored sweep curves as a bounded, least-recently-read cache.

A retained trial's curve is stored with at most ``BACKTESTD_SWEEP_CURVE_MAX_POINTS`` points
(about 0.6 MB), and a sweep retains at most ``maxSweepCartesian`` of them, but nothing bounded
how many sweeps keep theirs: they went only with their strategy. Now:

* the ledger (``sweep_curves``: bytes and last read per sweep) grows and shrinks with every
  shard's stored and dropped curves (a write counts as a read), and is touched when the curves
  are read (the result's pointers, the curve route; at most every ``TOUCH_SECONDS`` per sweep
  and process);
* after a shard stores curves, if the ledger's total is over ``BACKTESTD_SWEEP_CURVES_MAX_BYTES``,
  finished sweeps lose their stored curves down to ``LOW_WATER`` of the budget, least recently
  read first among the sweeps of the user holding the most above a fair share
  (``jobs/fair_eviction.py``), so one user's sweeps never push out another's while they hold
  more. A sweep still queued or running is never reclaimed.

The rows stay (params, metrics, daily returns: the leaderboard, DSR, PBO and sensitivity are
unchanged); the ledger remembers which runs' curves went, so the curve route says the curve was
reclaimed and how to get it again (run that trial as an execute: its curve comes in full).
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime

from backtestd.jobs.context import WorkerContext
from backtestd.jobs.fair_eviction import evict_fairly
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.sweep_curves import SweepCurveRepository
from backtestd.storage.db.repositories.sweeps import SweepRowRepository

log = logging.getLogger(__name__)

LOW_WATER = 0.9
EVICTION_BATCH = 100
TOUCH_SECONDS = 60.0

_touched_guard = threading.Lock()
_touched: dict[str, float] = {}


def read(database: Database, sweep_id: str, now: datetime) -> None:
    """The sweep's curves are being read: refresh its place in the order (at most every
    ``TOUCH_SECONDS`` per sweep and process)."""
    clock = time.monotonic()
    with _touched_guard:
        last = _touched.get(sweep_id)
        if last is not None and clock - last < TOUCH_SECONDS:
            return
        if len(_touched) > 4096:
            _touched.clear()
        _touched[sweep_id] = clock
    with database.unit_of_work() as uow:
        SweepCurveRepository(uow.session).touch(sweep_id, now)


def reclaim(ctx: WorkerContext) -> int:
    """While the ledger is over budget, drop the stored curves of finished sweeps, fairly
    between users and least recently read first; returns how many sweeps lost their curves."""
    budget = ctx.settings.sweep_curves_max_bytes
    with ctx.database.unit_of_work() as uow:
        held = SweepCurveRepository(uow.session).bytes_by_user()
    if sum(held.values()) <= budget:
        return 0
    listed: dict[str, datetime] = {}

    def oldest(user_id: str) -> list[tuple[str, int]]:
        with ctx.database.unit_of_work() as uow:
            found = SweepCurveRepository(uow.session).least_recently_read(user_id, EVICTION_BATCH)
        listed.update((sweep_id, read_at) for sweep_id, _, read_at in found)
        return [(sweep_id, size) for sweep_id, size, _ in found]

    def evict(sweep_id: str) -> bool:
        with ctx.database.unit_of_work() as uow:
            rows = SweepRowRepository(uow.session)
            ixs = rows.curve_ixs(sweep_id)
            ledger = SweepCurveRepository(uow.session)
            if not ledger.mark_reclaimed(sweep_id, listed[sweep_id], ixs, ctx.clock()):
                return False  # read meanwhile
            rows.drop_all_curves(sweep_id)
        return True

    removed = evict_fairly(held, budget, int(budget * LOW_WATER), oldest, evict)
    log.info(
        "stored sweep curves over %d bytes: reclaimed the curves of %d sweeps", budget, len(removed)
    )
    return len(removed)
