"""``backtestd apikey create|revoke|list``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer
from rich.table import Table

from backtestd.cli.common import DataDirOption, fail, settings_from, table_console
from backtestd.domain.scopes import ALL_SCOPES, parse_scopes
from backtestd.errors import BacktestdError
from backtestd.services.key_admin import key_admin

app = typer.Typer(help="Manage API keys (stored as hashes; a key is shown only once).")


@app.command("create")
def create(
    user: Annotated[str, typer.Option("--user", help="Account id the key belongs to")],
    tier: Annotated[str, typer.Option("--tier", help="free, basic, pro or elite")] = "free",
    expires: Annotated[
        str | None, typer.Option("--expires", help="Expiry as ISO-8601, e.g. 2027-01-01T00:00Z")
    ] = None,
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope",
            help="resource:action[,action] (repeatable), e.g. backtests:read,execute; "
            "default: every scope; 'none' for a key with no scope",
        ),
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Create a key; the key itself is the last line of stdout."""
    try:
        scopes = parse_scopes(scope) if scope else None
    except ValueError as exc:
        fail(str(exc))
        return
    expires_at = None
    if expires:
        try:
            expires_at = datetime.fromisoformat(expires.replace("Z", "+00:00"))
        except ValueError:
            fail(f"--expires {expires!r} is not an ISO-8601 date-time")
    settings = settings_from(data_dir)
    fresh = not settings.database_url and not settings.sqlite_path.exists()
    try:
        with key_admin(settings) as auth:
            record, raw_key = auth.create_key(user, tier, expires_at, scopes)
    except BacktestdError as exc:
        fail(exc.message)
        return
    granted = "; ".join(f"{r}:{','.join(a)}" for r, a in record.scopes.items()) or "none"
    typer.echo(
        f"created key {record.key_id} for user {record.user_id} (tier {record.tier}, "
        f"scopes {granted})"
    )
    typer.echo(f"stored in {settings.masked_database_url}", err=True)
    if fresh:
        typer.echo(
            f"warning: {settings.data_dir.resolve()} had no database yet, so no running service "
            "uses it. The key only works on a service started with the same data dir: run this "
            "from the directory where the service runs, or set BACKTESTD_DATA_DIR (or "
            "--data-dir) to the service's data dir.",
            err=True,
        )
    typer.echo(raw_key)


@app.command("revoke")
def revoke(
    key: Annotated[str, typer.Argument(help="The key, or its id as shown by 'list'")],
    data_dir: DataDirOption = None,
) -> None:
    """Revoke a key; tokens already issued stay valid until they expire."""
    try:
        with key_admin(settings_from(data_dir)) as auth:
            record = auth.revoke_key(key)
    except BacktestdError as exc:
        fail(exc.message)
        return
    typer.echo(f"revoked key {record.key_id} of user {record.user_id}")


@app.command("list")
def list_keys(data_dir: DataDirOption = None) -> None:
    """List keys (ids only; the secrets are not stored)."""
    with key_admin(settings_from(data_dir)) as auth:
        records = auth.list_keys()
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("KEY ID", "USER", "TIER", "SCOPES", "CREATED", "EXPIRES", "STATUS"):
        table.add_column(column, no_wrap=True)
    for r in records:
        table.add_row(
            r.key_id,
            r.user_id,
            r.tier,
            _scopes_text(r.scopes),
            f"{r.created_at:%Y-%m-%d %H:%M}",
            f"{r.expires_at:%Y-%m-%d %H:%M}" if r.expires_at else "-",
            "revoked" if r.revoked_at else "active",
        )
    table_console().print(table)


def _scopes_text(scopes: object) -> str:
    """``all``, ``none`` or ``backtests:read,execute datasets:read``."""
    if not isinstance(scopes, dict):
        return "all"
    if not scopes:
        return "none"
    if scopes == ALL_SCOPES:
        return "all"
    return " ".join(f"{resource}:{','.join(actions)}" for resource, actions in scopes.items())
