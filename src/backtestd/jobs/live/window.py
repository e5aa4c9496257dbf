"""The signal record's moving window (§7.2): per run the newest ``live_signals_per_run``
within ``live_signal_retention_days``, and at most ``live_signals_total`` in all.

Trimming after every append would cost a delete per signal; it runs every
``TRIM_EVERY`` appends of a run, so a run may briefly hold that many more.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import LiveSignalRepository

TRIM_EVERY = 20
DAY_MS = 86_400_000


class SignalWindow:
    def __init__(self, database: Database, settings: Settings, wall_now: Callable[[], int]) -> None:
        self._database = database
        self._per_run = settings.live_signals_per_run
        self._retention_ms = int(settings.live_signal_retention_days * DAY_MS)
        self._total = settings.live_signals_total
        self._wall_now = wall_now
        self._appends: dict[str, int] = {}
        self._lock = threading.Lock()

    def after_append(self, run_id: str) -> None:
        with self._lock:
            count = self._appends.get(run_id, 0) + 1
            self._appends[run_id] = count
        if count % TRIM_EVERY:
            return
        with self._database.unit_of_work() as uow:
            signals = LiveSignalRepository(uow.session)
            signals.trim(run_id, self._per_run, self._wall_now() - self._retention_ms)
            signals.trim_total(self._total)
