"""``backtestd ingest``: store downloaded exchange archive files as hourly market data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import TaskID

from backtestd.cli.common import DataDirOption, fail, progress_bar, settings_from
from backtestd.errors import BacktestdError


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Archive files (.csv or .zip)")],
    exchange: Annotated[str, typer.Option(help="Exchange id to store under")] = "binance",
    instrument: Annotated[
        str | None, typer.Option(help="Override the instrument, e.g. BTC/USDT")
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Read Binance public-archive klines/trades files into the hourly store."""
    from backtestd.services.container import build_services  # heavy: only when ingesting
    from backtestd.services.ingest import IngestService

    services = build_services(settings_from(data_dir))
    try:
        service = IngestService(services.store)
        with progress_bar() as progress:
            for path in paths:
                task = progress.add_task(f"{path.name}: parsing", total=None)

                def stored(
                    done: int, total: int, task: TaskID = task, name: str = path.name
                ) -> None:
                    progress.update(
                        task,
                        description=f"{name}: storing hours",
                        completed=done,
                        total=total,
                        refresh=True,
                    )

                report = service.ingest_file(exchange, path, instrument, stored)
                progress.remove_task(task)
                typer.echo(
                    f"{path.name}: {report.instrument} {report.kind} "
                    f"{report.hours} hours, {report.rows} rows "
                    f"({report.first_hour:%Y-%m-%dT%H} .. {report.last_hour:%Y-%m-%dT%H})"
                )
    except BacktestdError as exc:
        fail(exc.message)
    finally:
        services.close()
