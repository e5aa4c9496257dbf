"""External services for tests: skip when absent, fail when CI requires them."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

REQUIRE = os.environ.get("BACKTESTD_REQUIRE_SERVICES") == "1"
POSTGRES_ADMIN_URL = os.environ.get(
    "BACKTESTD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def unavailable(reason: str) -> None:
    """Skip with the reason, or fail when CI demands every service."""
    if REQUIRE:
        pytest.fail(f"{reason} (BACKTESTD_REQUIRE_SERVICES=1 demands it)")
    pytest.skip(reason)


@contextmanager
def temporary_postgres_database() -> Iterator[str]:
    """Create a fresh database, yield its SQLAlchemy URL, drop it afterwards."""
    import psycopg

    name = f"backtestd_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        unavailable(f"PostgreSQL is not reachable at {POSTGRES_ADMIN_URL}: {exc}")
        raise  # unreachable
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0]
    url = f"{base}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        yield url
    finally:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
