"""The executor protocol every job executor implements."""

from __future__ import annotations

from typing import Protocol


class JobExecutor(Protocol):
    def submit(self, job_id: str) -> None:
        """Queue a job whose row is committed; returns at once."""
        ...

    def close(self) -> None: ...

    def describe(self) -> str: ...
