"""The job state machine: ``New -> Started -> Completed | Failed | Aborted``.

Rules, in order (tested without I/O; the repository applies them as conditional updates so
that concurrent workers and cancel requests cannot race a job into two terminal states):

1. Terminal states are final: nothing leaves Completed, Failed or Aborted.
2. Cancel wins: once cancellation is requested, the only transition left is to Aborted.
3. Started may be entered again (a job resubmitted after a restart starts over).
4. Completion comes only from Started; failure and abort from New or Started.
"""

from __future__ import annotations

from backtestd.domain.jobs import JobStatus

ACTIVE = (JobStatus.NEW, JobStatus.STARTED)

SOURCES: dict[JobStatus, tuple[JobStatus, ...]] = {
    JobStatus.STARTED: (JobStatus.NEW, JobStatus.STARTED),
    JobStatus.COMPLETED: (JobStatus.STARTED,),
    JobStatus.FAILED: ACTIVE,
    JobStatus.ABORTED: ACTIVE,
}


def can_transition(current: JobStatus, target: JobStatus, cancel_requested: bool) -> bool:
    """Whether ``current -> target`` is allowed (rule order as in the module docstring)."""
    if current.terminal:
        return False
    if cancel_requested and target is not JobStatus.ABORTED:
        return False
    return current in SOURCES.get(target, ())
