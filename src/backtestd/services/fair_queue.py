"""A task queue that serves its owners round-robin, so one owner cannot starve the others.

A plain FIFO executor runs tasks in arrival order: a user who queues ten CPU-bound validations
delays every other user's validation by all ten. Here each owner (user id) has its own FIFO,
and a free worker takes the next task of the owner served least recently (owners never served
first, in arrival order). A newcomer's task therefore waits only for the tasks already running
and for owners that have waited longer than it, however many tasks those owners queued; an
owner whose task is running goes behind everyone else. The order within one owner's tasks is
kept.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable

log = logging.getLogger(__name__)

Task = Callable[[], None]
_MEMORY = 4096
"""Owners whose last pick is remembered before idle ones are forgotten."""


class FairQueue:
    def __init__(self, workers: int, name: str) -> None:
        self._ready = threading.Condition()
        self._queues: OrderedDict[str, deque[Task]] = OrderedDict()  # arrival order
        self._last_served: dict[str, int] = {}  # owner -> sequence number of its last pick
        self._picks = 0
        self._closed = False
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, owner: str, task: Task) -> None:
        """Queue ``task`` behind the owner's earlier tasks; returns at once."""
        with self._ready:
            if self._closed:
                raise RuntimeError("the queue is shut down")
            self._queues.setdefault(owner, deque()).append(task)
            self._ready.notify()

    def pending(self) -> dict[str, int]:
        """Queued (not yet started) tasks per owner."""
        with self._ready:
            return {owner: len(tasks) for owner, tasks in self._queues.items()}

    def shutdown(self) -> None:
        """Drop queued tasks and let the workers end after their current task."""
        with self._ready:
            self._closed = True
            self._queues.clear()
            self._ready.notify_all()

    def _next(self) -> Task | None:
        with self._ready:
            while not self._queues and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            owner = min(self._queues, key=lambda o: self._last_served.get(o, -1))
            tasks = self._queues[owner]
            task = tasks.popleft()
            if not tasks:
                del self._queues[owner]
            self._picks += 1
            self._last_served[owner] = self._picks
            if len(self._last_served) > _MEMORY:  # forget idle owners, keep the queued ones
                self._last_served = {o: self._last_served.get(o, -1) for o in self._queues}
            return task

    def _work(self) -> None:
        while (task := self._next()) is not None:
            try:
                task()
            except Exception:  # a task's failure must not kill the worker
                log.exception("queued task failed")
