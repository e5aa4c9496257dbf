"""Which live runs this process executes: leases in the database, renewed by heartbeats.

Every worker process runs one supervisor. It claims runs that are wanted running and that no
live executor holds (a free or expired lease), up to ``live_runs_per_worker``, renews the
leases of the runs it executes every third of ``live_lease_seconds``, and lets a run go when
it stops, fails, or its lease was lost. A process killed with ``kill -9`` renews nothing: its
leases expire and other supervisors take its runs over (docs/live.md, "Where runs execute").
Leases, not Dask tasks, because a live run never ends by itself: as a task it would hold a
Dask worker thread for good, starving backtests and sweeps.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable

from backtestd.jobs.live.execution import LiveExecution
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import LiveRunRepository

log = logging.getLogger(__name__)

ExecutionFactory = Callable[[str, int], LiveExecution | None]
"""Builds the execution of a claimed run (its id, how many executions it has had), or None
when the run cannot be executed (the factory recorded why)."""


def owner_id() -> str:
    """Names this process in leases: host, pid and a nonce (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class LiveSupervisor:
    def __init__(
        self,
        database: Database,
        build: ExecutionFactory,
        *,
        capacity: int,
        lease_seconds: float,
        wall_now: Callable[[], int],
        owner: str | None = None,
    ) -> None:
        self._database = database
        self._build = build
        self._capacity = capacity
        self._lease_ms = int(lease_seconds * 1000)
        self._wall_now = wall_now
        self.owner = owner or owner_id()
        self._executions: dict[str, tuple[LiveExecution, threading.Thread]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def run_ids(self) -> list[str]:
        return list(self._executions)

    def start(self) -> None:
        if self._capacity <= 0:
            return
        self._thread = threading.Thread(target=self._loop, name="live-supervisor", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 10.0) -> None:
        """Stop every execution and give their leases back (a clean shutdown: another
        process takes the runs over at once instead of after the lease)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        for run_id, (execution, thread) in list(self._executions.items()):
            execution.stop.set()
            thread.join(timeout)
            self._release(run_id)
        self._executions.clear()

    def _loop(self) -> None:
        interval = self._lease_ms / 3000
        while not self._stop.is_set():
            try:
                self.tick()
            except Exception:
                log.warning("live supervisor tick failed; retrying", exc_info=True)
            self._stop.wait(interval)

    def tick(self) -> None:
        """One heartbeat: renew, let finished runs go, claim free ones."""
        now = self._wall_now()
        until = now + self._lease_ms
        with self._database.unit_of_work() as uow:
            held = LiveRunRepository(uow.session).renew(self.owner, self.run_ids, until)
        for run_id, (execution, thread) in list(self._executions.items()):
            if run_id not in held:
                log.warning("lost the lease of live run %s; stopping its execution", run_id)
                execution.stop.set()
            if not thread.is_alive():
                del self._executions[run_id]
                if run_id in held:
                    self._release(run_id)
        room = self._capacity - len(self._executions)
        if room <= 0 or self._stop.is_set():
            return
        if self._executions:
            # Spread runs over the workers: a supervisor that already executes runs takes at
            # most one more per heartbeat, so idle ones (whose heartbeats interleave) get theirs.
            room = 1
        with self._database.unit_of_work() as uow:
            candidates = LiveRunRepository(uow.session).claimable(now, room)
        for index, run_id in enumerate(candidates):
            # Claiming many runs at once (a burst of starts, a takeover) is slow on a loaded
            # machine: each claim's lease counts from its own moment, and claiming pauses after a
            # third of a lease so that the next tick renews what is held before it expires (a
            # lease expiring under a live execution lets a second executor take the run).
            claimed_at = self._wall_now()
            if index and claimed_at - now >= self._lease_ms // 3:
                break
            with self._database.unit_of_work() as uow:
                executions = LiveRunRepository(uow.session).claim(
                    run_id, self.owner, claimed_at, claimed_at + self._lease_ms
                )
            if executions is None:
                continue  # another supervisor was faster
            try:
                built = self._build(run_id, executions)
            except Exception:
                log.exception("could not build the execution of live run %s", run_id)
                built = None
            if built is None:
                self._release(run_id)
                continue
            thread = threading.Thread(target=built.run, name=f"live-{run_id}", daemon=True)
            self._executions[run_id] = (built, thread)
            thread.start()

    def _release(self, run_id: str) -> None:
        try:
            with self._database.unit_of_work() as uow:
                LiveRunRepository(uow.session).release(run_id, self.owner)
        except Exception:
            log.warning("could not release the lease of %s; it expires by itself", run_id)
