"""Runs jobs on Dask: a LocalCluster started here, or an existing scheduler.

Tasks carry only the job id and the settings; workers read and write the database and the
object store themselves, so the API never holds job results in memory and a restarted API can
resubmit unfinished jobs.
"""

from __future__ import annotations

import logging
import os
import uuid

from distributed import Client, LocalCluster, fire_and_forget

from backtestd.jobs.runner import run_job
from backtestd.settings import Settings

log = logging.getLogger(__name__)


class DaskExecutor:
    def __init__(self, settings: Settings) -> None:
        self._settings_json = settings.model_dump_json()
        self._cluster: LocalCluster | None = None
        if settings.dask_scheduler:
            self._client = Client(settings.dask_scheduler, timeout=30)
        else:
            workers = settings.dask_workers or (os.cpu_count() or 1)
            self._cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,  # no web dashboard port: nothing to expose
                local_directory=str(settings.data_dir.resolve() / "dask-scratch"),
                silence_logs=logging.WARNING,
            )
            self._client = Client(self._cluster)

    def submit(self, job_id: str, priority: int = 0) -> None:
        future = self._client.submit(
            run_job,
            self._settings_json,
            job_id,
            key=f"job-{job_id}-{uuid.uuid4().hex[:8]}",
            pure=False,
            priority=priority,
        )
        fire_and_forget(future)

    def close(self) -> None:
        try:
            self._client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()

    def describe(self) -> str:
        if self._cluster is not None:
            return f"Dask LocalCluster with {len(self._cluster.workers)} worker processes"
        return f"Dask cluster at {self._client.scheduler.address}"
