"""Suite-wide isolation from the developer's environment.

``make run`` honours ``BACKTESTD_*`` variables, so a developer may have them exported; the tests
must not see them unless a test sets them itself. The harness's own switches
(``BACKTESTD_REQUIRE_SERVICES`` and ``BACKTESTD_TEST_*``) are kept.
"""

from __future__ import annotations

import os

import pytest

from tests.support.server import is_service_setting
from tests.support.services import JAVA_MARK, require_java


def service_variables(environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """The ``BACKTESTD_*`` names in ``environ`` that configure the service, not the harness."""
    return [name for name in environ if is_service_setting(name)]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{JAVA_MARK}(tool='java'): needs `tool` on PATH (skipped when absent, failed when "
        "BACKTESTD_REQUIRE_SERVICES=1); tests/support/services.py",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """``requires_java`` / ``requires_javac`` (tests/support/services.py), before any fixture."""
    for mark in item.iter_markers(JAVA_MARK):
        require_java(*mark.args, **mark.kwargs)


_JVM_DIRS = ("tests/integration/strategy/", "tests/integration/services/", "tests/e2e/")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks by location, so ``pytest -m "not e2e"`` is the fast inner loop (README)."""
    by_module = config.getoption("dist", "no") == "loadgroup"
    for item in items:
        if by_module:
            # One pytest-xdist worker runs a whole module, so its module fixtures (a server,
            # prepared data, a JVM) are set up once, as in one process.
            item.add_marker(
                pytest.mark.xdist_group(item.path.relative_to(config.rootpath).as_posix())
            )
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
