"""A replica's background check for jobs no executor holds (see ``BacktestService.recover_lost``).

One daemon thread per API process wakes every ``BACKTESTD_JOB_RECOVERY_SECONDS``; several
replicas doing the same is harmless (a job resubmitted twice runs once to its terminal state,
the second task finds it terminal or runs the same idempotent work).
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from backtestd.services.backtests import BacktestService

log = logging.getLogger(__name__)


class JobRecovery:
    def __init__(self, backtests: BacktestService, interval_seconds: int) -> None:
        self._backtests = backtests
        self._interval = interval_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._interval <= 0:
            return
        self._thread = threading.Thread(target=self._run, name="job-recovery", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                found = self._backtests.recover_lost(timedelta(seconds=self._interval))
            except Exception:
                log.warning("job recovery check failed", exc_info=True)
                continue
            if found:
                log.info("resubmitted %d jobs no executor held", found)
