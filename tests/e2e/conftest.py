"""One live server per database backend, shared by the black-box tests of a session.

Each backend's server is its own session fixture, started the first time a test asks for it and
kept until the session ends; ``live_server`` only picks one per parameter. Were ``live_server``
itself a parametrised session fixture, pytest would stop the SQLite server whenever a PostgreSQL
test came next and start it again for the next SQLite test: harmless in one process (pytest
orders the tests so that happens once), but a parallel worker (pytest-xdist) is handed whole
modules, each with both halves, and would restart both servers at every module.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.support.chromium import launched_chromium
from tests.support.server import LiveServer
from tests.support.services import temporary_postgres_database


@pytest.fixture(scope="session")
def sqlite_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("server-sqlite"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with temporary_postgres_database() as url:
        server = LiveServer(tmp_path_factory.mktemp("server-postgres"), database_url=url)
        server.start()
        yield server
        server.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def live_server(request: pytest.FixtureRequest) -> LiveServer:
    """The shared server on each database backend (the test runs once on each)."""
    server: LiveServer = request.getfixturevalue(f"{request.param}_server")
    return server


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium per dashboard module (each module skips itself without Chromium)."""
    with launched_chromium() as launched:
        yield launched
