"""Suite-wide isolation from the developer's environment.

``make run`` honours ``BACKTESTD_*`` variables, so a developer may have them exported; the tests
must not see them unless a test sets them itself. The harness's own switches
(``BACKTESTD_REQUIRE_SERVICES`` and ``BACKTESTD_TEST_*``) are kept.
"""

from __future__ import annotations

import os

import pytest

from tests.support.server import is_service_setting


def service_variables(environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """The ``BACKTESTD_*`` names in ``environ`` that configure the service, not the harness."""
    return [name for name in environ if is_service_setting(name)]


_JVM_DIRS = ("tests/integration/strategy/", "tests/integration/services/", "tests/e2e/")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks by location, so ``pytest -m "not e2e"`` is the fast inner loop (README)."""
    for item in items:
        path = item.path.as_posix()
        if "/tests/e2e/" in path:
            item.add_marker(pytest.mark.e2e)
        if any(f"/{d}" in path for d in _JVM_DIRS):
            item.add_marker(pytest.mark.jvm)
        if _needs_postgres(item):
            item.add_marker(pytest.mark.postgres)


_POSTGRES_FILES = ("test_scale_out.py", "test_cluster.py", "test_database_outage.py")


def _needs_postgres(item: pytest.Item) -> bool:
    """The PostgreSQL half of the database-parametrised suites, and the suites that need it."""
    callspec = getattr(item, "callspec", None)
    on_postgres = callspec is not None and "postgres" in callspec.params.values()
    return on_postgres or item.path.name in _POSTGRES_FILES


@pytest.fixture(autouse=True)
def _no_service_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in service_variables(os.environ):
        monkeypatch.delenv(name)
