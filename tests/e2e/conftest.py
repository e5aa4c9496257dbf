"""One live server per database backend, shared by the black-box tests of a session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.server import LiveServer
from tests.support.services import temporary_postgres_database


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def live_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    data_dir = tmp_path_factory.mktemp(f"server-{request.param}")
    if request.param == "sqlite":
        server = LiveServer(data_dir)
        server.start()
        yield server
        server.stop()
        return
    with temporary_postgres_database() as url:
        server = LiveServer(data_dir, database_url=url)
        server.start()
        yield server
        server.stop()
