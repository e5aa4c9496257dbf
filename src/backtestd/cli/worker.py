"""``backtestd worker``: join an existing Dask cluster as a job worker."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated

import typer

from backtestd.cli.common import fail, settings_from


def worker(
    scheduler: Annotated[
        str | None,
        typer.Option(help="Scheduler address (env BACKTESTD_DASK_SCHEDULER), tcp://host:8786"),
    ] = None,
    nthreads: Annotated[int, typer.Option(help="Jobs run at once by this worker")] = 1,
) -> None:
    """Run a Dask worker (one process, warm engine host) for the given scheduler."""
    from distributed import Nanny

    settings = settings_from(None)
    address = scheduler or settings.dask_scheduler
    if not address:
        fail("no scheduler: pass --scheduler tcp://host:8786 or set BACKTESTD_DASK_SCHEDULER")
    logging.basicConfig(level=logging.INFO)

    async def run() -> None:
        scratch = str(settings.data_dir.resolve() / "dask-scratch")
        async with Nanny(
            address, nthreads=nthreads, dashboard=False, local_directory=scratch
        ) as nanny:
            await nanny.finished()

    asyncio.run(run())
