"""The one admission path on a real database of each kind (SQLite, PostgreSQL): caps that
concurrent requests cannot both pass, "queue full" worded once for every kind of work, the
fair-share priority every runnable job gets, and idempotent resubmission.

The executor is the one stand-in: it records what it is handed and runs nothing (a queue whose
workers are busy, the state every cap is about). The job rows and counts are the real ones.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import DatasetIngestSpec, DatasetLimits
from backtestd.domain.jobs import JobKind
from backtestd.domain.sweeps import SweepShardSpec
from backtestd.errors import LimitExceeded
from backtestd.services.admission import Admission, NewJob
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database, UnitOfWork
from backtestd.storage.db.repositories.jobs import JobRepository
from tests.support.held_queue import HeldQueue
from tests.support.job_specs import execute_spec, prepare_spec

FREE = Principal("alice", "free")  # one concurrent execute or sweep
PRO = Principal("bob", "pro")


def _admission(tmp_path: Path, queue: HeldQueue, max_queued_jobs: int = 1000) -> Admission:
    settings = Settings(data_dir=tmp_path, max_queued_jobs=max_queued_jobs)
    return Admission(settings, lambda: queue, lambda: datetime.now(UTC))


def _execute(job_id: str, strategy: str = "s") -> NewJob:
    return NewJob(job_id, JobKind.EXECUTE, "sim", "ticker", execute_spec(strategy))


def test_two_concurrent_executes_cannot_both_pass_a_cap_of_one(
    database: Database, tmp_path: Path
) -> None:
    """Each admission dawdles between its count and its insert; without the admission lock
    both would count zero and both would be admitted."""
    queue = HeldQueue()
    admission = _admission(tmp_path, queue)
    start = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def slow(uow: UnitOfWork) -> None:
        time.sleep(0.3)

    def submit(job_id: str) -> None:
        start.wait(timeout=30)
        try:
            with database.unit_of_work() as uow:
                admission.admit(uow, FREE, _execute(job_id, job_id), check=slow)
            outcomes[job_id] = "admitted"
        except LimitExceeded as refused:
            outcomes[job_id] = refused.reason or "refused"

    threads = [threading.Thread(target=submit, args=(name,)) for name in ("x1", "x2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes.values()) == ["CONCURRENCY_LIMIT", "admitted"]
    with database.unit_of_work() as uow:
        assert JobRepository(uow.session).count_active(JobKind.EXECUTE, FREE.user_id) == 1
    assert len(queue.submitted) == 1


def test_queue_full_is_worded_once_for_every_kind_of_work(
    database: Database, tmp_path: Path
) -> None:
    queue = HeldQueue()
    admission = _admission(tmp_path, queue, max_queued_jobs=1)
    with database.unit_of_work() as uow:
        admission.admit(uow, PRO, NewJob("p1", JobKind.PREPARE, "sim", "ticker", prepare_spec()))
    ingest = DatasetIngestSpec("ds1", "up1", DatasetLimits("pro", 10, 20))
    refused = [
        _execute("x1"),
        NewJob("p2", JobKind.PREPARE, "sim", "ticker", prepare_spec("ETH/USDT")),
        NewJob("i1", JobKind.DATASET_INGEST, "user", "", ingest),
    ]
    messages = set()
    for job in refused:
        with pytest.raises(LimitExceeded) as caught, database.unit_of_work() as uow:
            admission.admit(uow, PRO, job)
        assert caught.value.reason == "QUEUE_FULL"
        messages.add(caught.value.message)
    assert messages == {"the job queue is full (1 jobs waiting or running); retry later"}
    with database.unit_of_work() as uow:
        assert JobRepository(uow.session).count_all_active() == 1


def test_a_users_jobs_of_every_kind_queue_behind_another_users_earlier_ones(
    database: Database, tmp_path: Path
) -> None:
    queue = HeldQueue()
    admission = _admission(tmp_path, queue)
    shards = [
        NewJob(f"swp.{n}", JobKind.SWEEP_SHARD, "sim", "ticker", SweepShardSpec("swp", n, n + 1))
        for n in range(3)
    ]
    sweep = NewJob("swp", JobKind.SWEEP, "sim", "ticker", execute_spec(), size=3, runs=False)
    with database.unit_of_work() as uow:
        admission.admit(uow, FREE, sweep, shards)
    with database.unit_of_work() as uow:
        admission.admit(uow, PRO, _execute("bob-1"))
    with database.unit_of_work() as uow:
        admission.admit(uow, PRO, _execute("bob-2", "other"))
    with database.unit_of_work() as uow:  # alice's prepare counts her shards, of another kind
        alice_prepare = NewJob("p1", JobKind.PREPARE, "sim", "ticker", prepare_spec())
        admission.admit(uow, FREE, alice_prepare)
    with database.unit_of_work() as uow:
        admission.admit(uow, PRO, NewJob("p2", JobKind.PREPARE, "sim", "ticker", prepare_spec()))
    # The sweep's own row is never run; its shards are ranked 0, -1, -2, bob's jobs 0, -1, -2
    # and alice's prepare behind her three shards: an executor that runs the highest priority
    # first interleaves the two users whatever the kinds of their jobs.
    assert queue.handed == [
        ("swp.0", 0),
        ("swp.1", -1),
        ("swp.2", -2),
        ("bob-1", 0),
        ("bob-2", -1),
        ("p1", -3),
        ("p2", -2),
    ]


def test_an_identical_submission_returns_the_job_and_checks_no_cap(
    database: Database, tmp_path: Path
) -> None:
    queue = HeldQueue()
    admission = _admission(tmp_path, queue)
    with database.unit_of_work() as uow:
        first = admission.admit(uow, FREE, _execute("x1"))
    with database.unit_of_work() as uow:  # at the cap of one now, but it is the same job
        again = admission.admit(uow, FREE, _execute("x1"))
    assert (first.created, again.created) == (True, False)
    assert again.job_id == "x1"
    with pytest.raises(LimitExceeded, match="at most 1 concurrent executions and sweeps"):
        with database.unit_of_work() as uow:
            admission.admit(uow, FREE, _execute("x2", "another"))
    assert queue.handed == [("x1", 0)]


def test_a_refused_admission_leaves_nothing_behind(database: Database, tmp_path: Path) -> None:
    queue = HeldQueue()
    admission = _admission(tmp_path, queue)

    def no_room(uow: UnitOfWork) -> None:
        raise LimitExceeded("no room")

    with pytest.raises(LimitExceeded, match="no room"), database.unit_of_work() as uow:
        admission.admit(uow, FREE, _execute("x1"), check=no_room)
    with database.unit_of_work() as uow:
        assert JobRepository(uow.session).get("x1") is None
    assert queue.submitted == []
