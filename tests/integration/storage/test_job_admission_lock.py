"""Job admission (count active jobs, then insert) is serialised: a second admission waits for
the first to commit and then counts its job, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import threading

from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.jobs import JobRepository
from tests.support.job_specs import new_job


def test_a_second_admission_waits_for_the_first_and_counts_its_job(database: Database) -> None:
    first_locked, release = threading.Event(), threading.Event()
    seen: list[int] = []

    def first() -> None:
        with database.unit_of_work() as uow:
            repo = JobRepository(uow.session)
            repo.lock_admission()
            assert repo.count_all_active() == 0
            first_locked.set()
            release.wait(timeout=30)
            repo.add(new_job("first"))

    def second() -> None:
        first_locked.wait(timeout=30)
        with database.unit_of_work() as uow:
            repo = JobRepository(uow.session)
            repo.lock_admission()
            seen.append(repo.count_all_active())
            repo.add(new_job("second"))

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    assert first_locked.wait(timeout=30)
    threads[1].join(timeout=1.0)
    assert threads[1].is_alive()  # blocked behind the first admission
    assert seen == []
    release.set()
    for thread in threads:
        thread.join(timeout=30)
    assert seen == [1]  # it counted the first admission's job
