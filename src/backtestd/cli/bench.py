"""``backtestd bench``: measurements a user can reproduce on their own machine."""

from __future__ import annotations

from typing import Annotated

import typer

from backtestd.cli.http_load import run_load

app = typer.Typer(help="Benchmarks (figures, not pass/fail).")


@app.command("http")
def http(
    url: Annotated[
        str, typer.Argument(help="Full URL to GET, e.g. http://127.0.0.1:8080/v1/exchanges")
    ],
    concurrency: Annotated[int, typer.Option(help="Open connections")] = 16,
    seconds: Annotated[float, typer.Option(help="Duration")] = 10.0,
) -> None:
    """Closed-loop GET load against a running server: requests per second and latency."""
    result = run_load(url, concurrency, seconds)
    typer.echo(f"{url}: {result.summary()}")
