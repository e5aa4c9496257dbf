"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from backtestd.errors import BacktestdError
from backtestd.settings import Settings, load_settings

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Data directory (env BACKTESTD_DATA_DIR, default ./var)",
        show_default=False,
    ),
]


def settings_from(data_dir: Path | None = None, **overrides: object) -> Settings:
    """Settings from the environment plus command-line overrides; exits on bad config."""
    try:
        return load_settings(data_dir=data_dir, **overrides)
    except BacktestdError as exc:
        fail(exc.message)
        raise  # unreachable: fail exits


def table_console() -> Console:
    """Where tables go: stdout, wide enough that no column wraps when piped to a file."""
    return Console(width=None if sys.stdout.isatty() else 200, highlight=False)


def progress_bar() -> Progress:
    """A progress display on stderr (so stdout keeps the results a script may read); shown only
    on a terminal."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not sys.stderr.isatty(),
    )


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)
