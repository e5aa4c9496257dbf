"""Progress and cancellation as seen from inside a running job."""

from __future__ import annotations

import time

from backtestd.domain.job_specs import JobResult
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.jobs import JobRepository

POLL_S = 0.5


class JobCancelled(Exception):
    """Raised inside a handler when the job's cancellation was requested."""


class JobFailed(Exception):
    """The job cannot produce a result; the message is its ``statusDetail`` and ``results``
    is stored as its (partial) result."""

    def __init__(self, message: str, results: JobResult | None = None) -> None:
        super().__init__(message)
        self.results = results


class JobYielded(Exception):
    """Raised inside a handler that gives its worker back to be resumed later: everything it
    finished is stored, and running it again goes on from there (sweep shards)."""


class JobProgress:
    def __init__(self, database: Database, job_id: str) -> None:
        self._database = database
        self._job_id = job_id
        self._polled_at = float("-inf")
        self._cancelled = False
        self._size = 0

    def size(self, size: int) -> None:
        self._size = size
        self.update(0)

    def update(self, completed: int) -> None:
        """Record progress; raises ``JobCancelled`` when a cancel was requested meanwhile."""
        with self._database.unit_of_work() as uow:
            repo = JobRepository(uow.session)
            repo.set_progress(self._job_id, self._size, completed)
            cancelled = repo.cancel_requested(self._job_id)
        if cancelled:
            raise JobCancelled(self._job_id)

    def cancel_requested(self) -> bool:
        """Whether a cancel was requested; reads the database at most every ``POLL_S``, so it
        can be polled while an engine run is in flight."""
        now = time.monotonic()
        if now - self._polled_at >= POLL_S:
            self._polled_at = now
            with self._database.unit_of_work() as uow:
                self._cancelled = JobRepository(uow.session).cancel_requested(self._job_id)
        return self._cancelled

    def check_polled(self) -> None:
        """``check`` with the flag read as :meth:`cancel_requested` reads it, at most every
        ``POLL_S``: for a loop of short steps that each would otherwise pay a read."""
        if self.cancel_requested():
            raise JobCancelled(self._job_id)

    def check(self) -> None:
        with self._database.unit_of_work() as uow:
            cancelled = JobRepository(uow.session).cancel_requested(self._job_id)
        if cancelled:
            raise JobCancelled(self._job_id)
