"""Runs jobs on Dask: a LocalCluster started here, or an existing scheduler.

Tasks carry only the job id and the settings without secrets (``Settings.without_secrets``);
workers put back the database password from their own configuration, then read and write the
database and the object store themselves, so the API never holds job results in memory and a
restarted API can resubmit unfinished jobs. With ``BACKTESTD_DASK_TLS_*`` every connection
(client, scheduler, workers) is mutual TLS with certificates signed by one CA.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import uuid

import dask.config
from distributed import Client, LocalCluster, Nanny, fire_and_forget, get_client
from distributed.security import Security

from backtestd.jobs.executors.forked_workers import start_workers_as_configured
from backtestd.jobs.executors.live_plugin import LiveRuns
from backtestd.jobs.executors.quiet_interrupt import PRELOAD as QUIET_INTERRUPT
from backtestd.jobs.executors.warm import WarmUp
from backtestd.jobs.runner import Yielded, run_job
from backtestd.settings import Settings

log = logging.getLogger(__name__)
JOB_KEY_PREFIX = "job-"
_TAG_LETTERS = "ghijklmnopqrstuvwxyz"  # never mistaken for hex by dask's key_split


def task_key(job_id: str) -> str:
    """``job-<tag>-<jobId>-<8 hex>``: a fresh key per submission, in its own Dask task group.

    Dask names a task's group after the key's leading alphabetic words, and a group of more
    tasks than twice the cluster's threads counts as "root-ish": those are held back in the
    scheduler and handed out as threads free up, while the group's first tasks were already
    sent to a worker's own queue. A late, high-priority job of another user then waits behind
    a job the worker already holds. With a random letter tag every job is its own group, so
    every job goes to a worker at once and the worker always starts the highest priority
    (docs/limits.md, fair sharing).
    """
    tag = "".join(secrets.choice(_TAG_LETTERS) for _ in range(12))
    return f"{JOB_KEY_PREFIX}{tag}-{job_id}-{uuid.uuid4().hex[:8]}"


def job_id_of(key: str) -> str:
    """``job-<tag>-<jobId>-<8 hex>`` -> ``<jobId>`` (job ids may contain ``-``; tag and suffix
    may not)."""
    return str(key)[len(JOB_KEY_PREFIX) :].split("-", 1)[1].rsplit("-", 1)[0]


def run_job_task(settings_json: str, job_id: str) -> str:
    """The Dask task of one job: run it; a job that gave its worker back (a sweep shard
    yielding to another user's waiting job) is submitted again from the worker, with the
    fair-share priority the runner gave it, so it queues behind what was waiting."""
    outcome = run_job(settings_json, job_id)
    if isinstance(outcome, Yielded):
        future = get_client().submit(
            run_job_task,
            settings_json,
            job_id,
            key=task_key(job_id),
            pure=False,
            priority=outcome.priority,
        )
        fire_and_forget(future)
        return "yielded"
    return outcome


_PENDING_STATES = frozenset({"released", "waiting", "queued", "no-worker", "processing"})
"""Task states in which a job will still run; an erred or finished task will not run again."""


def _task_keys(dask_scheduler: object) -> list[str]:
    """Runs on the scheduler: the keys of every task that will still run."""
    tasks = dask_scheduler.tasks  # type: ignore[attr-defined]
    return [str(key) for key, task in tasks.items() if task.state in _PENDING_STATES]


def dask_security(settings: Settings) -> Security | None:
    """Mutual TLS for every Dask role from the configured CA, certificate and key, or None."""
    if not settings.dask_tls:
        return None
    ca, cert, key = (
        str(settings.dask_tls_ca_file),
        str(settings.dask_tls_cert_file),
        str(settings.dask_tls_key_file),
    )
    return Security(
        tls_ca_file=ca,
        tls_client_cert=cert,
        tls_client_key=key,
        tls_worker_cert=cert,
        tls_worker_key=key,
        tls_scheduler_cert=cert,
        tls_scheduler_key=key,
        require_encryption=True,
    )


MONITORING = {
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.disk": False,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
}
"""Dask's instruments for a web dashboard this service never starts, turned down. Its system
monitor samples CPU, memory, network and disk of every scheduler and worker process through
psutil every 500 ms by default (about 5 % of a busy worker's CPU in the sweep benchmark): every
2 s here, without disk I/O. Its statistical profiler samples the stack of every worker's task
thread every 10 ms, and every scheduler, nanny and worker checks its event loop's health every
20 ms: off, and every 500 ms (the settings Dask's own test suite runs with). An idle
``backtestd serve`` with two workers used 7.0 CPU s a minute with Dask's defaults and 2.3 s
without those two (docs/deployment.md). The nannies' memory monitor (every 100 ms) is left as
it is: it is what stops a worker that runs out of memory. And every scheduler and worker
starts an HTTP server, without TLS, whatever the dashboard setting: the embedded scheduler's
answered on 127.0.0.1:8787 with the cluster's identity, workers and task counts in JSON (and a
second ``serve`` on the machine warned that 8787 was taken). No routes here, and the embedded
scheduler's on a port of its own choosing. Worker processes started by a nanny inherit the
nanny's Dask configuration."""


def task_settings_json(settings: Settings) -> str:
    """What every task carries: the settings with no secret in them."""
    return settings.without_secrets().model_dump_json()


class DaskExecutor:
    def __init__(self, settings: Settings) -> None:
        dask.config.set(MONITORING)
        self._settings_json = task_settings_json(settings)
        self._cluster: LocalCluster | None = None
        security = dask_security(settings)
        if settings.dask_scheduler:
            self._client = Client(settings.dask_scheduler, timeout=30, security=security)
        else:
            # The embedded cluster listens on loopback, where any local user could connect and
            # run code as this service; so it always speaks mutual TLS, with a throwaway CA and
            # certificates held in memory by this process and its worker processes only.
            security = security or Security.temporary()
            start_workers_as_configured(settings)
            workers = settings.dask_workers or (os.cpu_count() or 1)
            self._cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                # No dashboard; the HTTP server Dask starts anyway listens on a loopback port
                # of its own and serves no routes (MONITORING).
                dashboard_address="127.0.0.1:0",
                scheduler_kwargs={"dashboard": False},
                local_directory=str(settings.data_dir.resolve() / "dask-scratch"),
                silence_logs=logging.WARNING,
                # The secret the task leaves out reaches the worker processes this machine
                # starts through their environment, never through the scheduler; serve may have
                # it from a config file or an explicit setting, not only from its environment.
                env={"BACKTESTD_DATABASE_URL": settings.database_url},
                protocol="tls://",
                security=security,
                preload=[QUIET_INTERRUPT],  # Ctrl-C stops workers through their nanny only
            )
            self._client = Client(self._cluster, security=security)
        if settings.warm_workers:
            self._client.register_plugin(WarmUp(self._settings_json))
        if settings.live_enabled and settings.live_runs_per_worker > 0:
            self._client.register_plugin(LiveRuns(self._settings_json))

    def submit(self, job_id: str, priority: int = 0) -> None:
        future = self._client.submit(
            run_job_task,
            self._settings_json,
            job_id,
            key=task_key(job_id),
            pure=False,
            priority=priority,
        )
        fire_and_forget(future)

    def queued_job_ids(self) -> set[str] | None:
        """Job ids of every task the scheduler will still run, whichever client submitted it
        (a task that erred, e.g. while the database was down, no longer holds its job)."""
        try:
            keys = self._client.run_on_scheduler(_task_keys)
        except Exception:  # scheduler unreachable: cannot tell, so nothing is resubmitted
            log.warning("could not list the scheduler's tasks", exc_info=True)
            return None
        return {job_id_of(key) for key in keys if str(key).startswith(JOB_KEY_PREFIX)}

    def close(self) -> None:
        try:
            self._client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()

    def describe(self) -> str:
        tls = " (TLS)" if self._client.security.require_encryption else ""
        if self._cluster is not None:
            return (
                f"Dask LocalCluster at {self._cluster.scheduler_address} with "
                f"{len(self._cluster.workers)} worker processes{tls}"
            )
        return f"Dask cluster at {self._client.scheduler.address}{tls}"


def run_worker(settings: Settings, address: str, nthreads: int) -> None:
    """Join the scheduler at ``address`` as one supervised worker process until it stops.

    The worker's own environment supplies the database password (and its TLS certificate);
    tasks bring the rest of the settings.
    """
    scratch = str(settings.data_dir.resolve() / "dask-scratch")
    security = dask_security(settings)
    dask.config.set(MONITORING)
    start_workers_as_configured(settings)  # forked: a restarted worker is a fork

    async def run() -> None:
        async with Nanny(
            address,
            nthreads=nthreads,
            dashboard=False,
            local_directory=scratch,
            security=security,
            preload=[QUIET_INTERRUPT],
        ) as nanny:
            await nanny.finished()

    asyncio.run(run())
