"""``backtestd worker``: join an existing Dask cluster as a job worker."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from backtestd.cli.common import fail, settings_from


def worker(
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Scheduler address (env BACKTESTD_DASK_SCHEDULER), tcp://host:8786, or "
            "tls://host:8786 with BACKTESTD_DASK_TLS_CA_FILE/_CERT_FILE/_KEY_FILE"
        ),
    ] = None,
    nthreads: Annotated[int, typer.Option(help="Jobs run at once by this worker")] = 1,
) -> None:
    """Run a Dask worker (one process, warm engine host) for the given scheduler."""
    from backtestd.jobs.executors.dask import run_worker

    settings = settings_from(None, dask_scheduler=scheduler)
    if not settings.dask_scheduler:
        fail("no scheduler: pass --scheduler tcp://host:8786 or set BACKTESTD_DASK_SCHEDULER")
    logging.basicConfig(level=logging.INFO)
    run_worker(settings, settings.dask_scheduler, nthreads)
