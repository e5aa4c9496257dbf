"""The one stand-in of service tests: a job executor whose workers never free up.

It records what admission hands it (each job id with its fair-share priority) and runs
nothing, which is exactly the state every cap and priority is about. Everything the services
read — job rows, their states, the tier table — is the real service's.
"""

from __future__ import annotations


class HeldQueue:
    def __init__(self) -> None:
        self.handed: list[tuple[str, int]] = []
        """``(job id, priority)`` in the order the executor got them."""

    @property
    def submitted(self) -> list[str]:
        return [job_id for job_id, _ in self.handed]

    def submit(self, job_id: str, priority: int = 0) -> None:
        self.handed.append((job_id, priority))

    def queued_job_ids(self) -> set[str] | None:
        return set(self.submitted)

    def close(self) -> None:
        return None

    def describe(self) -> str:
        return "held queue (test)"
