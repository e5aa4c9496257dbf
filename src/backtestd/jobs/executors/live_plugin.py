"""The worker plugin that runs a live-run supervisor in every Dask worker process.

Live runs are carried by the existing compute: each worker process claims runs by a lease in
the database (``jobs/live/supervisor.py``). The scheduler hands the plugin to every worker,
including one the nanny restarts after a ``kill -9``, so a cluster always has supervisors where
it has workers. ``setup`` only starts a thread: the job stack is imported there.
"""

from __future__ import annotations

import threading
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin


class LiveRuns(WorkerPlugin):
    name = "backtestd-live-runs"

    def __init__(self, settings_json: str) -> None:
        self.settings_json = settings_json
        self._supervisor: Any = None

    def setup(self, worker: object) -> None:
        threading.Thread(target=self._start, name="backtestd-live-start", daemon=True).start()

    def _start(self) -> None:
        from backtestd.jobs.live.worker import start_supervisor  # heavy imports

        self._supervisor = start_supervisor(self.settings_json)

    def teardown(self, worker: object) -> None:
        if self._supervisor is not None:
            self._supervisor.close()
