"""The ``backtestd`` command: serve, worker, apikey, ingest, bench."""

from __future__ import annotations

import typer

from backtestd.cli import apikey, bench, ingest, serve, worker

app = typer.Typer(
    help="backtestd: a self-hostable strategy backtesting service.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("serve")(serve.serve)
app.add_typer(apikey.app, name="apikey")
app.command("ingest")(ingest.ingest)
app.add_typer(bench.app, name="bench")
app.command("worker")(worker.worker)
