"""``backtestd serve``: run the API with embedded defaults."""

from __future__ import annotations

import gc
import logging
import os
import socket
import sys
from typing import Annotated

import typer
import uvicorn

from backtestd.cli.common import DataDirOption, fail, settings_from
from backtestd.errors import BacktestdError


def serve(
    host: Annotated[
        str | None, typer.Option(help="Bind address (env BACKTESTD_HOST)", show_default=False)
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port (env BACKTESTD_PORT, default 8080)", show_default=False)
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Start the service; migrates the database first."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = settings_from(data_dir, host=host, port=port)
    listener = _reserve_port(settings.host, settings.port)
    if not settings.dask_scheduler:  # the embedded cluster's workers
        from backtestd.jobs.executors.forked_workers import forking_applies, start_fork_server

        if forking_applies(settings):
            start_fork_server()  # on the other core while the API's modules are imported below
    from backtestd.api.app import create_app
    from backtestd.services.container import build_services

    try:
        services = build_services(settings)
    except BacktestdError as exc:  # e.g. the object store refused the credentials
        listener.close()
        fail(exc.message)
        raise  # unreachable: fail exits
    base_url = f"http://{settings.host}:{settings.port}/v1"
    typer.echo(f"backtestd serving {base_url} (data in {settings.data_dir.resolve()})")
    typer.echo(f"  database: {settings.masked_database_url}")
    typer.echo(f"  dashboard: http://{settings.host}:{settings.port}/")
    typer.echo(f"  API docs: {base_url}/docs")
    if not services.auth.has_usable_key():
        typer.echo(
            "  No API key exists yet. Create one (same data dir / database settings) with:\n"
            f"    {_command_name()} apikey create --user alice --tier pro"
            f"{' --data-dir ' + str(data_dir) if data_dir else ''}\n"
            "  then exchange it for a token: "
            f"curl -X POST -H 'X-API-Key: <key>' {base_url}/auth/token"
        )
    app = create_app(settings, services)
    config = uvicorn.Config(
        app, host=settings.host, port=settings.port, log_level="info", access_log=False
    )
    _freeze_startup_heap()
    try:
        with listener:
            uvicorn.Server(config).run(sockets=[listener])
    finally:
        services.close()


def _freeze_startup_heap() -> None:
    """Leave what start-up allocated out of every later garbage collection (``gc.freeze``).

    The modules, the app, its schemas and the embedded cluster's scheduler are about 240,000
    tracked objects that live as long as the process, and a full collection walks all of them
    and whatever the requests keep: while a 910-vector sweep's leaderboard was polled, one took
    310-330 ms of the server's CPU with the GIL held, so no request moved meanwhile
    (docs/benchmarks.md). Frozen, they are never walked again; what requests allocate is
    collected as before. Only here, in the process ``serve`` owns: an app built by a test
    lives shorter than its process, and its frozen cycles would never be freed.
    """
    gc.freeze()


def _reserve_port(host: str, port: int) -> socket.socket:
    """Bind the API's port before anything starts (database, Dask cluster) and keep it.

    Checking the port and binding it later would leave a window in which another process can
    take it: the Dask scheduler, nannies and workers started in between bind ports of their own
    from the kernel's ephemeral range, and a port in that range (a test harness's pick, or a
    user's) has been lost to them. Holding the bound socket until uvicorn listens on it closes
    that window; a port already taken fails here, before anything else starts.
    """
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        fail(
            f"cannot listen on {host}:{port} ({exc.strerror}): another process uses the "
            "port; stop it or choose another port with --port or BACKTESTD_PORT"
        )
    return listener


def _command_name() -> str:
    """How this command was invoked (e.g. ``.venv/bin/backtestd`` under ``make run``)."""
    invoked = sys.argv[0] if sys.argv and sys.argv[0].endswith("backtestd") else "backtestd"
    try:
        return os.path.relpath(invoked) if os.path.isabs(invoked) else invoked
    except ValueError:
        return invoked
