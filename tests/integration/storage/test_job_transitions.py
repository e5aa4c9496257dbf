"""The job state machine, enforced by the database exactly as the domain table says.

For every state a job can be in, with and without a cancel request, every transition the
repository offers is tried on a real SQLite database; the row must move exactly when
``domain.jobs.can_transition`` allows it, and otherwise stay as it was.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import update

from backtestd.domain.jobs import JobKind, JobStatus, can_transition
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.tables import jobs
from tests.support.job_specs import new_job

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    path: Path = tmp_path_factory.mktemp("transitions") / "jobs.sqlite3"
    db = Database(f"sqlite:///{path}")
    migrate(db)
    yield db
    db.dispose()


def _job_in(database: Database, job_id: str, status: JobStatus, cancel: bool) -> None:
    with database.unit_of_work() as uow:
        JobRepository(uow.session).add(new_job(job_id, kind=JobKind.EXECUTE, created_at=NOW))
        uow.session.execute(  # put the row straight into the state under test
            update(jobs)
            .where(jobs.c.job_id == job_id)
            .values(status=status.value, cancel_requested=cancel)
        )


def _status(database: Database, job_id: str) -> JobStatus:
    with database.unit_of_work() as uow:
        record = JobRepository(uow.session).get(job_id)
    assert record is not None
    return record.status


CASES = list(itertools.product(JobStatus, JobStatus, (False, True)))


@pytest.mark.parametrize(
    ("current", "target", "cancel"),
    CASES,
    ids=[f"{c.value}->{t.value}{'+cancel' if x else ''}" for c, t, x in CASES],
)
def test_the_database_moves_a_job_exactly_when_the_domain_allows(
    database: Database, current: JobStatus, target: JobStatus, cancel: bool
) -> None:
    job_id = f"{current.value}-{target.value}-{cancel}"
    _job_in(database, job_id, current, cancel)

    with database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        if target is JobStatus.STARTED:
            moved = repo.mark_started(job_id, NOW)
        elif target is JobStatus.NEW:  # a sweep shard yielding its worker
            moved = repo.mark_yielded(job_id)
        else:
            moved = repo.finish(job_id, target, NOW, "detail", None)

    allowed = can_transition(current, target, cancel)
    assert moved is allowed
    assert _status(database, job_id) is (target if allowed else current)


@pytest.mark.parametrize("current", list(JobStatus), ids=[s.value for s in JobStatus])
def test_cancel_aborts_a_new_job_at_once_and_only_flags_a_started_one(
    database: Database, current: JobStatus
) -> None:
    job_id = f"cancel-{current.value}"
    _job_in(database, job_id, current, cancel=False)

    with database.unit_of_work() as uow:
        JobRepository(uow.session).request_cancel(job_id, NOW)
    with database.unit_of_work() as uow:
        record = JobRepository(uow.session).get(job_id)

    assert record is not None
    expected = JobStatus.ABORTED if current is JobStatus.NEW else current
    assert record.status is expected
    assert record.cancel_requested is (current in (JobStatus.NEW, JobStatus.STARTED))


def test_terminal_states_are_final_and_cancel_wins_in_the_domain_table() -> None:
    for current, target, cancel in CASES:
        if current.terminal:
            assert not can_transition(current, target, cancel)
        if cancel and target is not JobStatus.ABORTED:
            assert not can_transition(current, target, cancel)
    assert can_transition(JobStatus.STARTED, JobStatus.ABORTED, True)
    assert can_transition(JobStatus.STARTED, JobStatus.STARTED, False)  # restart starts over
    assert not can_transition(JobStatus.NEW, JobStatus.COMPLETED, False)
    assert can_transition(JobStatus.STARTED, JobStatus.NEW, False)  # a yield
    assert not can_transition(JobStatus.STARTED, JobStatus.NEW, True)  # not once cancelled


def test_a_yield_does_not_count_as_an_attempt(database: Database) -> None:
    _job_in(database, "yields", JobStatus.NEW, cancel=False)
    for _ in range(5):  # more turns than BACKTESTD_MAX_JOB_ATTEMPTS
        with database.unit_of_work() as uow:
            repo = JobRepository(uow.session)
            assert repo.mark_started("yields", NOW)
            assert repo.mark_yielded("yields")
    with database.unit_of_work() as uow:
        record = JobRepository(uow.session).get("yields")
    assert record is not None
    assert (record.status, record.attempts) == (JobStatus.NEW, 0)


def test_only_other_users_jobs_waiting_long_enough_ask_a_shard_to_yield(
    tmp_path: Path,
) -> None:
    db = Database(f"sqlite:///{tmp_path / 'waiting.sqlite3'}")
    migrate(db)
    kinds = (JobKind.EXECUTE, JobKind.PREPARE)

    def add(job_id: str, user: str, at: datetime, status: JobStatus) -> None:
        with db.unit_of_work() as uow:
            JobRepository(uow.session).add(
                new_job(job_id, user_id=user, kind=JobKind.EXECUTE, created_at=at)
            )
            uow.session.execute(
                update(jobs).where(jobs.c.job_id == job_id).values(status=status.value)
            )

    def waiting(user: str) -> bool:
        with db.unit_of_work() as uow:
            return JobRepository(uow.session).others_waiting(kinds, user, NOW)

    add("mine", "attacker", NOW, JobStatus.NEW)
    add("running", "victim", NOW, JobStatus.STARTED)
    add("later", "victim", NOW.replace(minute=1), JobStatus.NEW)
    assert not waiting("attacker")  # my own, a running one, one submitted after the cutoff
    add("waiting", "victim", NOW, JobStatus.NEW)
    assert waiting("attacker")
    assert waiting("victim")  # fair both ways: the attacker's waiting job counts for the victim
    with db.unit_of_work() as uow:
        uow.session.execute(update(jobs).where(jobs.c.job_id == "mine").values(status="Started"))
    assert not waiting("victim")  # only its own job is waiting now
    db.dispose()


def test_finish_refuses_a_non_terminal_target(database: Database) -> None:
    _job_in(database, "not-terminal", JobStatus.STARTED, cancel=False)
    with database.unit_of_work() as uow, pytest.raises(ValueError, match="terminal"):
        JobRepository(uow.session).finish("not-terminal", JobStatus.STARTED, NOW, None, None)


@pytest.mark.parametrize(("status", "completed"), [(JobStatus.COMPLETED, 3), (JobStatus.FAILED, 2)])
def test_a_completed_job_row_records_all_of_its_steps_done(
    database: Database, status: JobStatus, completed: int
) -> None:
    """An execute's last step used to leave ``completed`` at 2 of 3 (issue 27, point 3)."""
    job_id = f"progress-{status.value}"
    _job_in(database, job_id, JobStatus.NEW, cancel=False)
    with database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        assert repo.mark_started(job_id, NOW)
        repo.set_progress(job_id, 3, 2)
        assert repo.finish(job_id, status, NOW, None, None)
    with database.unit_of_work() as uow:
        record = JobRepository(uow.session).get(job_id)
    assert record is not None
    assert (record.size, record.completed) == (3, completed)
