"""Black-box: the web dashboard in a real headless Chromium against a live server.

The browser is Debian's Chromium (``/usr/bin/chromium``) driven by Playwright; every request
the page makes is recorded, and anything that leaves the server's own origin fails the test.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import LiveServer
from tests.support.strategies import source

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    if os.environ.get("BACKTESTD_REQUIRE_SERVICES") == "1":
        raise RuntimeError(f"Chromium is required for the dashboard tests ({CHROMIUM} missing)")
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

BAD_QTSCRIPT = "strategy Broken\n  buy when price >\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("dashboard"))
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    origin = server.base_url.removesuffix("/v1")
    foreign: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(origin) else foreign.append(r.url))
    page.on("pageerror", lambda exc: foreign.append(f"page error: {exc}"))
    yield page
    context.close()
    assert foreign == [], "the dashboard must load nothing from elsewhere and raise no errors"


def sign_in(page: Page, server: LiveServer, user: str, tier: str = "pro") -> str:
    key = server.create_key(user, tier=tier)
    page.goto(server.base_url.removesuffix("/v1") + "/")
    page.fill("#apikey", key)
    page.click("#signin button")
    page.wait_for_selector("#tier")
    return key


def test_sign_in_shows_the_tier_and_keeps_the_token_in_this_tab_only(
    page: Page, server: LiveServer
) -> None:
    sign_in(page, server, "dash-ann", tier="elite")
    assert page.inner_text("#tier") == "elite"
    assert page.inner_text("#max-execute") == "8"
    token = page.evaluate("sessionStorage.getItem('backtestd.jwt')")
    assert token.count(".") == 2  # a JWT
    assert page.evaluate("document.cookie") == ""
    assert token not in page.url
    page.click("#signout")
    page.wait_for_selector("#apikey")
    assert page.evaluate("sessionStorage.length") == 0


def test_a_wrong_key_is_refused_with_the_services_message(page: Page, server: LiveServer) -> None:
    page.goto(server.base_url.removesuffix("/v1") + "/")
    page.fill("#apikey", "not-a-key")
    page.click("#signin button")
    page.wait_for_selector("#signin-error:not(:empty)")
    assert "key" in page.inner_text("#signin-error").lower()


def test_compile_errors_are_shown_at_their_line_and_a_strategy_registers(
    page: Page, server: LiveServer
) -> None:
    sign_in(page, server, "dash-bo")
    page.click("nav >> text=Strategies")
    page.fill("#source", BAD_QTSCRIPT)
    page.click("#register")
    page.wait_for_selector("#compile-error")
    assert "Line 2" in page.inner_text("#compile-error")
    assert page.locator("#register-result pre.code .ln.err").count() >= 1
    page.fill("#source", source("ema_cross.java"))
    page.click("#register")
    page.wait_for_selector("#new-strategy")
    page.click("#new-strategy")
    page.wait_for_selector("#code")
    assert "class EmaCross" in page.inner_text("#code")
    assert page.locator("#code .kw").count() > 5  # highlighted


def test_prepare_execute_and_read_the_result_with_charts(page: Page, server: LiveServer) -> None:
    sign_in(page, server, "dash-cy")
    page.click("nav >> text=Strategies")
    page.fill("#source", source("ema_cross.java"))
    page.click("#register")
    page.wait_for_selector("#new-strategy")
    page.click("nav >> text=Backtests")
    page.click("#prepare-form button")
    page.wait_for_selector("#job-table .status >> text=Completed", timeout=120_000)
    assert "%" in page.inner_text("#job-table .coverage")
    page.click("#execute-form button")
    page.wait_for_selector("#result-state", timeout=120_000)
    assert page.inner_text("#result-state") == "Completed"
    trades = int(page.inner_text("[data-metric=totalTrades]"))
    assert trades > 0
    equity = page.locator("#equity-chart svg")
    assert int(equity.get_attribute("data-points") or 0) == trades + 1
    assert page.locator("#drawdown-chart svg path.dd").count() == 1
    box = equity.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + 100)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + 100)
    page.mouse.up()
    zoomed = int(equity.get_attribute("data-drawn") or 0)
    assert zoomed < trades + 1  # a zoomed window shows part of the curve


def test_a_sweep_shows_its_leaderboard_and_heatmap(page: Page, server: LiveServer) -> None:
    sign_in(page, server, "dash-di")
    page.click("nav >> text=Strategies")
    page.fill("#source", source("ema_cross.java"))
    page.click("#register")
    page.wait_for_selector("#new-strategy")
    page.click("nav >> text=Backtests")
    page.click("#prepare-form button")
    page.wait_for_selector("#job-table .status >> text=Completed", timeout=120_000)
    page.click("nav >> text=Sweeps")
    page.click("#sweep-form button")
    page.wait_for_selector("#sweep-status >> text=COMPLETED", timeout=180_000)
    assert page.locator("#leaderboard tbody tr").count() == 6
    page.wait_for_selector("#heatmap svg")
    assert page.locator("#heatmap svg").get_attribute("data-cells") == "6"
    page.locator("#leaderboard tbody tr.clickable").first.click()
    page.wait_for_selector("#trial-chart svg")


def test_a_walk_forward_sweep_shows_its_folds_as_a_timeline(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    sign_in(page, server, "dash-gus")
    page.click("nav >> text=Strategies")
    page.fill("#source", source("ema_cross.java"))
    page.click("#register")
    page.wait_for_selector("#new-strategy")
    page.click("nav >> text=Backtests")
    page.click("#prepare-form button")
    page.wait_for_selector("#job-table .status >> text=Completed", timeout=120_000)
    page.click("nav >> text=Sweeps")
    page.fill("#sweep-form input[name=folds]", "2")
    page.click("#sweep-form button")
    page.wait_for_selector("#sweep-status >> text=COMPLETED", timeout=180_000)
    page.wait_for_selector("#fold-chart svg")
    assert page.locator("#fold-chart svg").get_attribute("data-folds") == "2"
    assert page.locator("#fold-chart rect.is").count() == 2
    assert page.locator("#fold-chart rect.oos").count() == 2
    assert "2 of 2 folds" in page.inner_text("#fold-summary")
    page.screenshot(path=str(tmp_path / "walk-forward.png"))


def _prices_csv(rows: int) -> bytes:
    lines = ["timestamp,close"] + [f"{1_740_000_000 + 60 * i},{100 + i % 7}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def test_a_dataset_uploads_with_progress_becomes_ready_and_is_deleted(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    """The page PUTs the file to the presigned URL itself (as the SDK does), shows the upload
    progress, waits for the ingest and shows the discovered cadence and gaps."""
    sign_in(page, server, "dash-ed")
    page.click("nav >> text=Datasets")
    page.wait_for_selector("#upload-form")
    upload = tmp_path / "minutes.csv"
    upload.write_bytes(_prices_csv(50))
    page.fill("#upload-form input[name=name]", "minutes")
    page.set_input_files("#upload-form input[name=file]", str(upload))
    page.click("#upload-form button")
    page.wait_for_selector("#upload-status >> text=ready", timeout=120_000)
    assert page.eval_on_selector("#upload-progress", "p => p.value") == 100
    assert "50 rows at 1m, 0 gaps" in page.inner_text("#upload-status")
    row = page.locator("#dataset-table tbody tr", has_text="minutes")
    assert row.locator(".cadence").inner_text() == "1m"
    assert "ready" in row.inner_text()
    page.screenshot(path=str(tmp_path / "datasets.png"))
    # the same name again: the service's 409 message appears next to the form
    page.fill("#upload-form input[name=name]", "minutes")
    page.click("#upload-form button")
    page.wait_for_selector("#upload-error:not(:empty)")
    assert "minutes" in page.inner_text("#upload-error")
    row.locator(".delete-dataset").click()
    page.wait_for_selector("#dataset-table tbody tr >> text=no datasets yet")


def test_a_bad_upload_shows_the_ingest_error_next_to_the_form(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    sign_in(page, server, "dash-flo")
    page.click("nav >> text=Datasets")
    page.wait_for_selector("#upload-form")
    upload = tmp_path / "no-close.csv"
    upload.write_bytes(b"timestamp,price\n1740000000,1\n1740000060,2\n")
    page.fill("#upload-form input[name=name]", "broken")
    page.set_input_files("#upload-form input[name=file]", str(upload))
    page.click("#upload-form button")
    page.wait_for_selector("#upload-error:not(:empty)", timeout=120_000)
    assert "close" in page.inner_text("#upload-error")


def test_the_api_docs_render_in_a_browser_without_internet(page: Page, server: LiveServer) -> None:
    """Swagger UI (served by the service) renders the OpenAPI 3.1 document FastAPI writes."""
    page.goto(server.base_url + "/docs")
    page.wait_for_selector(".information-container .title", timeout=30_000)
    assert "backtestd" in page.inner_text(".information-container .title")
    assert page.locator(".opblock").count() > 20  # the operations are listed
