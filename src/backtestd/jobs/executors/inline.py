"""Runs jobs on threads of this process with one shared worker context (tests, tools)."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from backtestd.jobs.context import WorkerContext
from backtestd.jobs.runner import execute_job


class InlineExecutor:
    def __init__(self, context: WorkerContext, threads: int = 2) -> None:
        self._context = context
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="job")
        self.futures: list[Future[str]] = []

    def submit(self, job_id: str, priority: int = 0) -> None:
        """FIFO: ``priority`` is ignored (this executor serves tests and tools only)."""
        self.futures.append(self._pool.submit(execute_job, self._context, job_id))

    def queued_job_ids(self) -> set[str] | None:
        return None  # never loses a job: it lives and dies with this process

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def describe(self) -> str:
        return "inline threads"
