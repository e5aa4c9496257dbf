"""Dask worker processes forked from a fork server that has loaded the job stack once.

Dask starts a worker process with ``spawn`` by default: a fresh interpreter imports Dask,
numpy, numba, SQLAlchemy, pyarrow and the job modules, and loads the compiled kernels from
numba's cache, in every worker and again in every worker its nanny restarts (1.4-3 CPU s a
worker on the development machine, by its load: most of a service's start). With ``forkserver`` one
process, started before the first worker, imports all that (``worker_image``) and forks each
worker from itself. That process is fresh, not the service: a worker inherits no thread, socket,
database connection or key of the API process, exactly as with ``spawn``.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import dask.config
import distributed.utils

from backtestd.settings import Settings

PRELOAD = ["distributed", "backtestd.jobs.executors.worker_image"]
"""What the fork server imports before it forks anything (by name: importing ``worker_image``
here would load the kernels into the API process)."""


def forking_applies(settings: Settings) -> bool:
    """Whether this service forks its workers: asked for (``fork_workers``) and on Linux.

    Elsewhere spawning stays: macOS's system libraries (numpy's Accelerate BLAS among them)
    are not safe to use in a forked child, which is why Python spawns there by default, and
    Windows has no fork at all.
    """
    return settings.fork_workers and sys.platform.startswith("linux")


def start_workers_as_configured(settings: Settings) -> None:
    """Have the nannies started after this call fork their workers from the fork server or,
    where forking does not apply, spawn them (set either way: one process may build clusters
    with both settings, as the tests do)."""
    if forking_applies(settings):
        fork_workers_from_image()
    else:
        dask.config.set({"distributed.worker.multiprocessing-method": "spawn"})


def fork_workers_from_image() -> None:
    """Have Dask's nannies started after this call fork their workers from the fork server.

    Dask's own first use of ``forkserver`` would set the fork server's preload list to Dask's
    packages (importing numpy, pandas and lz4 into this process to find them) and would not
    include ours; marking it done and setting ours instead keeps both out of the API process.
    The list is read when the fork server starts, at the first worker.
    """
    dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    distributed.utils._forkserver_preload_set = True
    multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)


def start_fork_server() -> None:
    """Start the fork server now, so that it imports the workers' stack while this process
    imports its own (the API's): the workers are forked as soon as the cluster asks for them
    rather than after the fork server's imports."""
    fork_workers_from_image()
    with _worker_environment():
        multiprocessing.forkserver.ensure_running()


@contextmanager
def _worker_environment() -> Iterator[None]:
    """This process's environment plus what Dask's nanny sets before it starts a worker (one
    BLAS thread, glibc's trim threshold, a fixed hash seed: ``pre-spawn-environ``).

    A worker forked from the fork server has the fork server's environment, taken when it
    started: started by the nanny, after the nanny set those, it has them; started ahead,
    here, it must be given them. They are set for the fork server only, not for the API
    process (where the nanny sets them only later, once the API has imported numpy), and
    nothing else runs in this process yet to see the change.
    """
    configured = dask.config.get("distributed.nanny.pre-spawn-environ") or {}
    extra = {k: str(v) for k, v in configured.items() if v is not None and k not in os.environ}
    if os.environ.get("PYTHONHASHSEED") in (None, "0"):
        extra["PYTHONHASHSEED"] = "6640"  # the nanny's choice, for the same hashes everywhere
    saved = dict(os.environ)
    os.environ.update(extra)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
