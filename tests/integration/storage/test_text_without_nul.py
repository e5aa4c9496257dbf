"""Text holding NUL is stored on both database kinds, each NUL as U+FFFD.

PostgreSQL refuses NUL in text; a job whose final detail held one (a strategy's exception
message) could not be finished there. The engine's statement hook replaces it on either kind.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text

from backtestd.domain.jobs import JobStatus
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.jobs import JobRepository
from tests.support.job_specs import new_job


def test_nul_in_a_jobs_fields_is_stored_as_a_replacement_character(
    database: Database,
) -> None:
    now = datetime.now(UTC)
    with database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        assert repo.add(new_job("a", user_id="u\x00ser", status_detail="queued\x00"))
        assert repo.add(new_job("b", user_id="u\x00ser"))
    with database.unit_of_work() as uow:
        assert JobRepository(uow.session).finish(
            "b", JobStatus.FAILED, now, "threw: stopped at\x00here", None
        )
    with database.unit_of_work() as uow:
        repo = JobRepository(uow.session)
        a, b = repo.get("a"), repo.get("b")
    assert a is not None
    assert b is not None
    assert a.status_detail == "queued\ufffd"
    assert a.user_id == "u\ufffdser"
    assert b.status == JobStatus.FAILED
    assert b.status_detail == "threw: stopped at\ufffdhere"
    with database.unit_of_work() as uow:  # a lookup by a key holding NUL finds nothing, quietly
        assert JobRepository(uow.session).get("a\x00") is None


def test_nul_in_a_batched_insert_is_stored_as_a_replacement_character(database: Database) -> None:
    """Several parameter sets in one statement (as sweep rows are written) go through the same
    replacement."""
    with database.engine.begin() as conn:
        conn.execute(text("CREATE TABLE nul_probe (t TEXT)"))
        conn.execute(text("INSERT INTO nul_probe (t) VALUES (:t)"), [{"t": "a\x00"}, {"t": "b"}])
        stored = sorted(conn.execute(text("SELECT t FROM nul_probe")).scalars())
        conn.execute(text("DROP TABLE nul_probe"))
    assert stored == ["a\ufffd", "b"]
