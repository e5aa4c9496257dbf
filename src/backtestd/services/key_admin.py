"""API-key administration without the rest of the service.

``backtestd apikey`` runs often (every test creates keys, operators script it) and needs only
the database and the JWT secret; building every service would import the numerical stack, the
object store and Dask first, several seconds for a one-row insert.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from backtestd.services.auth import AuthService, load_or_create_secret
from backtestd.services.rate_limit import RateLimiter
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate


@contextmanager
def key_admin(settings: Settings) -> Iterator[AuthService]:
    """The auth service over the configured (migrated) database, closed afterwards."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    database = Database(settings.resolved_database_url)
    try:
        migrate(database)
        yield AuthService(settings, database, load_or_create_secret(settings), RateLimiter())
    finally:
        database.dispose()
