"""Debian's Chromium for the dashboard tests: where it is, when to skip, how to launch it.

A dashboard module calls :func:`require_chromium` as it is imported, so a machine without
Chromium skips it with the reason (and CI, which sets ``BACKTESTD_REQUIRE_SERVICES=1``, fails
instead of skipping); its ``browser`` fixture is the one in ``tests/e2e/conftest.py``, launched
by :func:`launched_chromium`. (Playwright itself is a test dependency, always installed.)
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
"""Headless in a container, and nothing that talks to Google: the tests record every request
the page makes, and one leaving the server's origin fails them."""


def require_chromium() -> None:
    """Skip the calling module when Chromium is missing (raise when the services are required)."""
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("BACKTESTD_REQUIRE_SERVICES") == "1":
        raise RuntimeError(f"Chromium is required for the dashboard tests ({CHROMIUM} missing)")
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)


@contextmanager
def launched_chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(ARGS))
        try:
            yield browser
        finally:
            browser.close()
