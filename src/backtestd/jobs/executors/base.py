"""The executor protocol every job executor implements."""

from __future__ import annotations

from typing import Protocol


class JobExecutor(Protocol):
    def submit(self, job_id: str, priority: int = 0) -> None:
        """Queue a job whose row is committed; returns at once.

        Higher ``priority`` runs first; equal priorities run in submission order. Services
        pass minus the owner's number of earlier active jobs, which interleaves users
        round-robin instead of first come, first served (docs/limits.md).
        """
        ...

    def queued_job_ids(self) -> set[str] | None:
        """Jobs the executor holds (waiting or running), or None when it cannot tell."""
        ...

    def close(self) -> None: ...

    def describe(self) -> str: ...
