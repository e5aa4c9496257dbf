"""Black-box: the web dashboard in a real headless Chromium against a live server.

The browser is Debian's Chromium (``/usr/bin/chromium``) driven by Playwright; every request
the page makes is recorded, and anything that leaves the server's own origin fails the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.support.chromium import require_chromium
from tests.support.server import LiveServer
from tests.support.strategies import source

require_chromium()


BAD_QTSCRIPT = "strategy Broken\n  buy when price >\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("dashboard"))
    live.start()
    yield live
    live.stop()


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


def register_and_prepare(page: Page, server: LiveServer, user: str) -> None:
    """Sign in, register the EMA cross strategy and prepare the default data window."""
    sign_in(page, server, user)
    page.click("nav >> text=Strategies")
    page.fill("#source", source("ema_cross.java"))
    page.click("#register")
    page.wait_for_selector("#new-strategy")
    page.click("nav >> text=Backtests")
    page.click("#prepare-form button")
    page.wait_for_selector("#job-table .status >> text=Completed", timeout=120_000)


def fill_axes(page: Page, axes: dict[str, tuple[int, int, int]]) -> None:
    """Tick and fill the sweep form's per-property rows."""
    for name, (start, stop, step) in axes.items():
        row = page.locator(f'#axis-table tr[data-param="{name}"]')
        row.locator(".axis-on").check()
        row.locator(".axis-from").fill(str(start))
        row.locator(".axis-to").fill(str(stop))
        row.locator(".axis-step").fill(str(step))


def column(page: Page, key: str) -> list[float]:
    """A leaderboard column's values (the cells show them rounded; data-value is exact)."""
    cells = page.locator(f"#leaderboard tbody td[data-col={key}]").evaluate_all(
        "cells => cells.map(c => c.dataset.value)"
    )
    return [float(c) for c in cells if c]


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


def test_a_refused_token_returns_to_sign_in_and_signing_in_again_returns_to_the_view(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    """A 401 from any call (here: a corrupted token) shows the sign-in form with the reason,
    not an error in place of the view; signing in again goes back to where the user was."""
    key = sign_in(page, server, "dash-hal")
    page.click("nav >> text=Strategies")
    page.wait_for_selector("#strategy-table")
    page.evaluate("sessionStorage.setItem('backtestd.jwt', 'not.a.token')")
    page.click("nav >> text=Backtests")
    page.wait_for_selector("#apikey")
    assert "sign in again" in page.inner_text("#signin-error")
    assert page.locator("#prepare-form").count() == 0
    assert page.evaluate("sessionStorage.getItem('backtestd.jwt')") is None
    assert page.locator("#nav").is_hidden()
    page.screenshot(path=str(tmp_path / "session-expired.png"))
    page.fill("#apikey", key)
    page.click("#signin button")
    page.wait_for_selector("#prepare-form")
    assert page.url.endswith("#/backtests")


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
    # the list's rows open from the keyboard: each id is a link
    page.click("nav >> text=Strategies")
    page.wait_for_selector("#strategy-table a")
    assert page.locator("#strategy-table tbody a").count() == 1
    page.focus("#strategy-table tbody a")
    page.keyboard.press("Enter")
    page.wait_for_selector("#code")
    # an action's API error appears next to it, and the page stays
    strategy_id = page.url.rsplit("/", 1)[1]
    token = page.evaluate("sessionStorage.getItem('backtestd.jwt')")
    gone = httpx.delete(
        f"{server.base_url}/strategy/{strategy_id}", headers={"Authorization": f"Bearer {token}"}
    )
    assert gone.status_code == 200
    page.click("#validate")
    page.wait_for_selector("#strategy-error:not(:empty)")
    assert strategy_id in page.inner_text("#strategy-error")
    assert "Traceback" not in page.inner_text("#strategy-error")
    assert page.locator("#code").count() == 1


def test_prepare_execute_and_read_the_result_with_charts_signals_and_markers(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    register_and_prepare(page, server, "dash-cy")
    assert "%" in page.inner_text("#job-table .coverage")
    page.check("#execute-form input[name=storeSignals]")
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
    # the stored signals: a table, a CSV download with every row, markers on the price
    page.wait_for_selector("#signals-table tbody tr td")
    signals = int(page.inner_text("#signal-count"))
    assert signals > 0
    assert page.locator("#signals-table tbody tr").count() == min(signals, 500)
    with page.expect_download() as download_info:
        page.click("#signals-csv")
    download = download_info.value
    assert download.suggested_filename.startswith("signals_")
    lines = Path(download.path()).read_text().splitlines()
    assert lines[0] == "ts,side,price,info"
    assert len(lines) == 1 + signals
    buys = sum(1 for line in lines[1:] if line.split(",")[1] == "1")
    page.wait_for_selector("#price-chart svg", timeout=60_000)
    price = page.locator("#price-chart svg")
    assert int(price.get_attribute("data-points") or 0) > 100  # prices of the window
    assert price.locator("circle.buy").count() == buys
    assert price.locator("circle.sell").count() == signals - buys
    page.screenshot(path=str(tmp_path / "result.png"), full_page=True)


def test_market_data_charts_one_hour_inside_the_coverage_with_its_downloads(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    sign_in(page, server, "dash-ivy")
    page.click("nav >> text=Market data")
    page.wait_for_selector("#instrument-table tbody tr")
    page.select_option("#hour-form select[name=instrument]", "ETH/USDT")
    assert "tickers of ETH/USDT" in page.inner_text("#hour-coverage")
    day = page.input_value("#hour-form input[name=day]")
    assert page.get_attribute("#hour-form input[name=day]", "max") == day  # the latest hour
    page.click("#hour-form button")
    page.wait_for_selector("#hour-chart svg", timeout=60_000)
    hour = f"{day}T{page.input_value('#hour-form select[name=hour]')}"
    links = page.locator("#hour-downloads a")
    assert links.count() == 3
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(3)]
    assert all(f"hour={hour}" in h for h in hrefs)
    assert [h.rsplit("format=", 1)[1] for h in hrefs] == ["lastra", "parquet", "csv"]
    rows = httpx.get(server.base_url.removesuffix("/v1") + hrefs[2]).text.strip().splitlines()
    assert page.locator("#hour-chart svg").get_attribute("data-points") == str(len(rows) - 1)
    page.screenshot(path=str(tmp_path / "market-hour.png"), full_page=True)
    # klines of the same hour, then an hour after the coverage: refused next to the form
    page.select_option("#hour-form select[name=kind]", "klines")
    page.click("#hour-form button")
    page.wait_for_function(
        "document.querySelector('#hour-chart svg') && "
        "document.querySelector('#hour-downloads a').href.includes('/klines/')"
    )
    page.fill("#hour-form input[name=day]", "2999-01-01")
    page.click("#hour-form button")
    page.wait_for_selector("#hour-error:not(:empty)")
    assert "outside the klines coverage" in page.inner_text("#hour-error")


def test_a_sweep_built_from_declared_properties_shows_board_sensitivity_and_curves(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    """Axes from the declared min/max/step; the leaderboard sorts by header and follows the
    order/ranking/objective controls; every marginal and the heatmap are drawn; the retained
    trials' curves are overlaid; a row re-runs as a backtest and opens its result."""
    register_and_prepare(page, server, "dash-di")
    page.click("nav >> text=Sweeps")
    fast = page.locator('#axis-table tr[data-param="fast"]')
    fast.wait_for()
    assert fast.locator(".axis-on").is_checked()  # declared min=2, max=50, step=1
    assert [fast.locator(c).input_value() for c in (".axis-from", ".axis-to", ".axis-step")] == [
        "2",
        "50",
        "1",
    ]
    slow = page.locator('#axis-table tr[data-param="slow"]')
    assert not slow.locator(".axis-on").is_checked()  # no declared range
    assert slow.locator(".axis-from").input_value() == "21"
    assert "49 combinations" in page.inner_text("#grid-size")
    fill_axes(page, {"fast": (5, 15, 5), "slow": (20, 30, 10)})
    assert "6 combinations" in page.inner_text("#grid-size")
    page.click("#sweep-form button[type=submit]")
    page.wait_for_selector("#sweep-status >> text=COMPLETED", timeout=180_000)
    assert page.locator("#leaderboard tbody tr").count() == 6
    # sensitivity: a marginal per axis (3 and 2 values) and one heatmap for the one pair
    page.wait_for_selector("#heatmaps svg")
    assert page.locator("#heatmaps svg").count() == 1
    assert page.locator("#heatmaps svg").get_attribute("data-cells") == "6"
    assert page.locator("#marginals figure.marginal").count() == 2
    assert page.locator('#marginals figure[data-param="fast"] tbody tr').count() == 3
    assert page.locator('#marginals figure[data-param="slow"] tbody tr').count() == 2
    assert (
        page.locator('#marginals figure[data-param="fast"] svg').get_attribute("data-values") == "3"
    )
    assert "deflated Sharpe" in page.inner_text("#dsr-help")
    assert "overfitting" in page.inner_text("#pbo-help")
    # overlaid equity curves: one series per row whose curve was retained
    page.wait_for_selector("#trial-chart svg")
    retained = page.locator("#leaderboard .show-curve").count()
    assert retained >= 1
    assert page.locator("#trial-chart svg").get_attribute("data-series") == str(retained)
    assert page.locator("#trial-chart svg path.series").count() == retained
    page.focus("#leaderboard .show-curve")  # from the keyboard
    page.keyboard.press("Enter")
    page.wait_for_selector("#trial-chart svg path.highlight")
    page.screenshot(path=str(tmp_path / "sweep.png"), full_page=True)
    # sortable by a header click, with aria-sort
    assert len(set(column(page, "pnlPct"))) > 1
    page.click("#leaderboard th[data-key=pnlPct] button")
    assert page.get_attribute("#leaderboard th[data-key=pnlPct]", "aria-sort") == "ascending"
    assert column(page, "pnlPct") == sorted(column(page, "pnlPct"))
    page.click("#leaderboard th[data-key=pnlPct] button")
    assert page.get_attribute("#leaderboard th[data-key=pnlPct]", "aria-sort") == "descending"
    assert column(page, "pnlPct") == sorted(column(page, "pnlPct"), reverse=True)
    assert page.get_attribute("#leaderboard th[data-key=sharpe]", "aria-sort") == "none"
    page.click("#leaderboard th[data-key=runIx] button")  # back to a known order
    # the controls go to the API: natural order lists runs 0..5 unranked
    with page.expect_response(lambda r: "order=natural" in r.url):
        page.select_option("#lb-order", "natural")
    page.wait_for_selector("#leaderboard-note >> text=natural order")
    runs = page.locator("#leaderboard tbody tr").evaluate_all("rs => rs.map(r => r.dataset.run)")
    assert runs == ["0", "1", "2", "3", "4", "5"]
    with page.expect_response(lambda r: "ranking=raw" in r.url and "objective=pnl" in r.url):
        page.select_option("#lb-order", "ranked")
        page.select_option("#lb-ranking", "raw")
        page.select_option("#lb-objective", "pnl")
    page.wait_for_selector("#leaderboard-note >> text=raw ranking by pnl")
    assert page.locator("#leaderboard tbody tr").count() == 6
    assert column(page, "plateauScore") == []  # raw ranking: no plateau scores
    # re-run the best row: a backtest with its parameters, its result page opens
    best = page.locator("#leaderboard tbody tr").first
    trades = best.locator("td").nth(8).inner_text().split()[0]
    best.locator(".rerun").click()
    page.wait_for_selector("#result-state", timeout=120_000)
    assert page.inner_text("#result-state") == "Completed"
    assert page.inner_text("[data-metric=totalTrades]") == trades


def test_a_walk_forward_sweep_shows_its_folds_as_a_timeline(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    register_and_prepare(page, server, "dash-gus")
    page.click("nav >> text=Sweeps")
    page.wait_for_selector('#axis-table tr[data-param="fast"]')
    page.click("#sweep-form details summary")  # the advanced option: axes as JSON
    axes = '{"fast": {"from": 5, "to": 15, "step": 5}, "slow": {"values": [20, 30]}}'
    page.fill("#sweep-form input[name=axes]", axes)
    assert "6 combinations" in page.inner_text("#grid-size")
    page.fill("#sweep-form input[name=folds]", "2")
    page.click("#sweep-form button[type=submit]")
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


def test_a_dataset_uploads_with_progress_becomes_ready_shows_a_preview_and_is_deleted(
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
    row.locator(".preview-dataset").click()  # the close series as a chart
    page.wait_for_selector("#preview-chart svg")
    assert page.locator("#preview-chart svg").get_attribute("data-points") == "50"
    assert "50 rows at 1m" in page.inner_text("#preview-note")
    page.screenshot(path=str(tmp_path / "datasets.png"), full_page=True)
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
