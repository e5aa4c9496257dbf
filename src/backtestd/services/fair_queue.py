"""A task queue that serves its owners round-robin, so one owner cannot starve the others.

A plain FIFO executor runs tasks in arrival order: a user who queues ten CPU-bound validations
delays every other user's validation by all ten. Here each owner (user id) has its own FIFO,
and a free worker takes the next task of the next owner in rotation. A newcomer's task
therefore waits for at most the tasks already running plus one task of each other owner that
has work queued, however many tasks those owners queued. The order within one owner's tasks
is kept.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable

log = logging.getLogger(__name__)

Task = Callable[[], None]


class FairQueue:
    def __init__(self, workers: int, name: str) -> None:
        self._ready = threading.Condition()
        self._queues: OrderedDict[str, deque[Task]] = OrderedDict()  # rotation order
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
            owner, tasks = next(iter(self._queues.items()))
            task = tasks.popleft()
            del self._queues[owner]
            if tasks:  # back of the rotation: every other owner goes first
                self._queues[owner] = tasks
            return task

    def _work(self) -> None:
        while (task := self._next()) is not None:
            try:
                task()
            except Exception:  # a task's failure must not kill the worker
                log.exception("queued task failed")
