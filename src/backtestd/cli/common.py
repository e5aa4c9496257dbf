"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)
