"""Prepared data as a bounded LRU cache (``jobs/prepared_cache.py``) on real parts: a worker
context over SQLite and the local object store, prepares of generated ``sim`` hours run by
``process_job``. A prepare over the budget reclaims the least recently used one's columns, and
a later load rebuilds them bit for bit; a rebuild that cannot give the same rows fails saying so.
Eviction is fair between users: one user preparing a lot loses their own columns, not another
user's idle prepare.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backtestd.domain.backtests import PrepareSpec
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.domain.marketdata import RUN_COLUMNS, DataType
from backtestd.jobs.context import WorkerContext, build_worker_context
from backtestd.jobs.handlers.trial import TrialFailed, load_prepared
from backtestd.jobs.runner import process_job
from backtestd.settings import Settings
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.prepared import PreparedDataRepository
from backtestd.storage.objects.keys import prepared_column_key, prepared_manifest_key

HOUR = timedelta(hours=1)
COLUMNS = RUN_COLUMNS[DataType.KLINE]


def _context(tmp_path: Path, budget: int) -> WorkerContext:
    settings = Settings(
        data_dir=tmp_path, prepared_max_bytes=budget, prepared_reclaim_grace_seconds=0
    )
    context = build_worker_context(settings)
    migrate(context.database)
    return context


@pytest.fixture
def probe(tmp_path: Path) -> Iterator[WorkerContext]:
    """A context with no budget to speak of, to measure one prepare's bytes."""
    context = _context(tmp_path / "probe", 1 << 40)
    yield context
    context.engines.close()
    context.database.dispose()


def _prepare(
    ctx: WorkerContext, job_id: str, hours_ago: int, user_id: str = "u1", hours: int = 2
) -> None:
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - hours_ago * HOUR
    spec = PrepareSpec("sim", DataType.KLINE, "BTC/USDT", end - hours * HOUR, end, "1m", 60_000)
    with ctx.database.unit_of_work() as uow:
        JobRepository(uow.session).add(
            JobRecord(
                job_id,
                user_id,
                JobKind.PREPARE,
                "sim",
                "kline",
                spec,
                JobStatus.NEW,
                datetime.now(UTC),
            )
        )
    assert process_job(ctx, job_id) == "Completed"


def _columns(ctx: WorkerContext, job_id: str) -> dict[str, bytes | None]:
    return {name: ctx.objects.get(prepared_column_key(job_id, name)) for name in COLUMNS}


def _ledger(ctx: WorkerContext) -> int:
    with ctx.database.unit_of_work() as uow:
        return PreparedDataRepository(uow.session).total_bytes()


def test_the_least_recently_used_prepare_is_reclaimed_and_rebuilt_bit_for_bit(
    tmp_path: Path, probe: WorkerContext
) -> None:
    _prepare(probe, "size", 3)
    one = _ledger(probe)
    assert one > 0
    ctx = _context(tmp_path / "cache", int(one * 1.5))
    try:
        _prepare(ctx, "older", 3)
        before = _columns(ctx, "older")
        assert all(before.values())
        _prepare(ctx, "newer", 6)  # two prepares are over 1.5 of one: the older one goes

        assert not any(_columns(ctx, "older").values())
        assert ctx.objects.get(prepared_manifest_key("older")) is not None  # kept, tiny
        assert all(_columns(ctx, "newer").values())
        assert _ledger(ctx) == sum(len(b or b"") for b in _columns(ctx, "newer").values())

        data = load_prepared(ctx, "older", "kline")  # rebuilt from the prepare's own spec

        assert _columns(ctx, "older") == before
        assert data.rows > 100
    finally:
        ctx.engines.close()
        ctx.database.dispose()


def test_a_rebuild_that_cannot_give_the_same_rows_fails_and_says_to_prepare_again(
    probe: WorkerContext,
) -> None:
    _prepare(probe, "drifted", 3)
    key = prepared_manifest_key("drifted")
    manifest = json.loads(probe.objects.get(key) or b"{}")
    manifest["rows"] += 7  # what the source held then is not what it holds now
    probe.objects.put(key, json.dumps(manifest).encode())
    for name in COLUMNS:
        probe.objects.delete(prepared_column_key("drifted", name))

    with pytest.raises(TrialFailed, match="no longer holds the same data") as caught:
        load_prepared(probe, "drifted", "kline")

    assert "prepare the range again" in str(caught.value)
    assert not any(_columns(probe, "drifted").values())
    assert json.loads(probe.objects.get(key) or b"{}")["rows"] == manifest["rows"]


def test_an_attacker_filling_the_cache_loses_their_own_columns_and_the_victims_idle_prepare_stays(
    tmp_path: Path, probe: WorkerContext
) -> None:
    _prepare(probe, "size", 3)
    one = _ledger(probe)
    ctx = _context(tmp_path / "cache", int(one * 2.5))  # room for two and a half prepares
    try:
        _prepare(ctx, "victim", 3, user_id="victim")
        before = _columns(ctx, "victim")
        attacks = [f"attack{n}" for n in range(5)]
        for n, job_id in enumerate(attacks):  # every one newer than the victim's, never used
            _prepare(ctx, job_id, 6 + 3 * n, user_id="attacker")

        # A global LRU would have taken the victim's prepare, the oldest, first of all.
        assert _columns(ctx, "victim") == before
        held = [job_id for job_id in attacks if all(_columns(ctx, job_id).values())]
        assert held == attacks[-1:]  # over its share, the attacker kept only its newest
        assert not any(_columns(ctx, attacks[0]).values())
        assert _ledger(ctx) <= int(one * 2.5)
        with ctx.database.unit_of_work() as uow:
            assert PreparedDataRepository(uow.session).bytes_by_user() == {
                "victim": sum(len(b or b"") for b in before.values()),
                "attacker": sum(len(b or b"") for b in _columns(ctx, attacks[-1]).values()),
            }
    finally:
        ctx.engines.close()
        ctx.database.dispose()


def test_a_prepare_is_never_reclaimed_by_its_own_storing_even_above_the_fair_share(
    tmp_path: Path, probe: WorkerContext
) -> None:
    """The columns a prepare (or a rebuild for a run) has just stored are about to be used:
    the reclaim their storing runs skips them, and takes them on a later store if still idle."""
    _prepare(probe, "size", 3)
    one = _ledger(probe)
    ctx = _context(tmp_path / "cache", int(one * 2.5))
    try:
        _prepare(ctx, "victim", 3, user_id="victim")
        _prepare(ctx, "big", 12, user_id="attacker", hours=6)  # three times the others

        assert all(_columns(ctx, "big").values())  # alone over the share of 1.25, but kept
        assert all(_columns(ctx, "victim").values())  # within its share

        _prepare(ctx, "small", 20, user_id="attacker")

        assert not any(_columns(ctx, "big").values())
        assert all(_columns(ctx, "small").values())
        assert all(_columns(ctx, "victim").values())
    finally:
        ctx.engines.close()
        ctx.database.dispose()
