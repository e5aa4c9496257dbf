"""The worker plugin that warms a worker as it joins (kept light: see ``WarmUp``)."""

from __future__ import annotations

import threading

from distributed.diagnostics.plugin import WorkerPlugin


class WarmUp(WorkerPlugin):
    """Warms every worker as it joins: its engine host and the numba kernels
    (``backtestd.jobs.runner.warm_worker``).

    The scheduler hands the plugin to each worker and waits for its ``setup``, so this module
    imports nothing heavy and ``setup`` only starts a background thread: the job stack (numba,
    the database, the engine host) is imported and started there, and joining is not delayed.
    A job arriving meanwhile waits on the same locks.
    """

    name = "backtestd-warm-up"

    def __init__(self, settings_json: str) -> None:
        self.settings_json = settings_json

    def setup(self, worker: object) -> None:
        threading.Thread(
            target=_warm, args=(self.settings_json,), name="backtestd-warm-up", daemon=True
        ).start()


def _warm(settings_json: str) -> None:
    from backtestd.jobs.runner import warm_worker  # heavy: numba, SQLAlchemy, the JVM client

    warm_worker(settings_json)
