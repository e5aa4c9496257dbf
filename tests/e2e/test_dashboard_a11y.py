"""Accessibility basics of the dashboard (issue 13): axe-core audits and keyboard use.

Every view is audited with axe-core (shipped in the ``axe-playwright-python`` package, so
nothing is fetched) in Debian's Chromium against a live server; no view may have a serious or
critical violation. Signing in works from the keyboard alone.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.support.chromium import require_chromium
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

require_chromium()

from axe_playwright_python.sync_playwright import Axe  # noqa: E402
from playwright.sync_api import Browser, Page  # noqa: E402

VIEWS = ("#/account", "#/market", "#/strategies", "#/backtests", "#/sweeps", "#/live", "#/datasets")
BLOCKING = ("serious", "critical")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("dashboard-a11y"))
    live.start()
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


def _violations(page: Page) -> list[dict[str, Any]]:
    violations: list[dict[str, Any]] = Axe().run(page).response["violations"]
    return violations


def _blocking(page: Page) -> list[dict[str, Any]]:
    return [v for v in _violations(page) if v.get("impact") in BLOCKING]


def _describe(violations: list[dict[str, Any]]) -> str:
    return "; ".join(
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in violations
    )


def test_sign_in_works_from_the_keyboard_and_passes_axe(page: Page, server: LiveServer) -> None:
    key = server.create_key("a11y-keys", tier="pro")
    page.goto(server.base_url.removesuffix("/v1") + "/")
    page.wait_for_selector("#apikey")
    assert _blocking(page) == [], _describe(_blocking(page))

    for _ in range(10):  # Tab until the key field has focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.id") == "apikey":
            break
    assert page.evaluate("document.activeElement.id") == "apikey"
    page.keyboard.type(key)
    page.keyboard.press("Enter")
    page.wait_for_selector("#tier")


def test_every_view_has_no_serious_or_critical_axe_violation(
    page: Page, server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    key = server.create_key("a11y-views", tier="pro")
    origin = server.base_url.removesuffix("/v1")
    page.goto(origin + "/")
    page.fill("#apikey", key)
    page.click("#signin button")
    page.wait_for_selector("#tier")
    found: dict[str, str] = {}
    by_impact: Counter[str] = Counter()
    for view in VIEWS:
        page.goto(f"{origin}/{view}")
        page.wait_for_load_state("networkidle")
        violations = _violations(page)
        by_impact.update(str(v.get("impact")) for v in violations)
        blocking = [v for v in violations if v.get("impact") in BLOCKING]
        if blocking:
            found[view] = _describe(blocking)
    with capsys.disabled():  # the audit's figure, for the closing note
        sys.stdout.write(
            f"\naxe-core over {len(VIEWS)} views: {dict(by_impact) or 'no'} violations\n"
        )
    assert found == {}, found


def _hours_ago(hours: int) -> str:
    at = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=hours)
    return at.strftime("%Y-%m-%dT%H:%MZ")


def _poll(client: httpx.Client, path: str, done: Any, timeout: float = 180) -> Any:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        response = client.get(path)
        if response.status_code == 200 and done(response.json()):
            return response.json()
        pauses.sleep()
    raise AssertionError(f"{path} not done after {timeout}s")


def test_result_strategy_and_sweep_pages_have_no_serious_or_critical_axe_violation(
    page: Page, server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pages with charts and tables: a backtest result, a strategy's code, a sweep with
    its leaderboard, marginals, heatmap and overlaid curves. The work is set up through the
    API; the pages are opened by their addresses."""
    key = server.create_key("a11y-results", tier="pro")
    headers = {"Authorization": f"Bearer {server.token(key)}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as client:
        strategy = client.post(
            "/strategy", content=source("ema_cross.java"), headers={"Content-Type": "text/plain"}
        ).json()["strategyId"]
        window = {"instrument": "BTC/USDT", "from": _hours_ago(8), "to": _hours_ago(2)}
        prepare = client.post("/backtest/sim/ticker/prepare", json=window).json()["jobId"]
        _poll(
            client,
            f"/backtest/sim/ticker/prepare/{prepare}",
            lambda b: b["status"] in ("Completed", "Failed", "Aborted"),
        )
        body = {"prepareJobId": prepare, "strategyId": strategy, "storeSignals": True}
        execute = client.post("/backtest/sim/ticker/execute", json=body).json()["jobId"]
        _poll(client, f"/backtest/sim/ticker/execute/{execute}", lambda b: "results" in b)
        axes = {"fast": {"from": 5, "to": 15, "step": 5}, "slow": {"values": [20, 30]}}
        sweep = client.post(
            f"/backtest/sim/ticker/executeSweep/{prepare}",
            json={"strategyId": strategy, "sweep": {"params": axes}},
        ).json()["sweepId"]
    origin = server.base_url.removesuffix("/v1")
    page.goto(origin + "/")
    page.fill("#apikey", key)
    page.click("#signin button")
    page.wait_for_selector("#tier")
    pages = {
        f"#/strategy/{strategy}": "#code",
        f"#/result/sim/ticker/{execute}": "#price-chart svg",  # after the signals table
        f"#/sweep/sim/ticker/{prepare}/{sweep}": "#trial-chart svg",
    }
    found: dict[str, str] = {}
    by_impact: Counter[str] = Counter()
    for address, ready in pages.items():
        page.goto(f"{origin}/{address}")
        page.wait_for_selector(ready, timeout=180_000)
        violations = _violations(page)
        by_impact.update(str(v.get("impact")) for v in violations)
        blocking = [v for v in violations if v.get("impact") in BLOCKING]
        if blocking:
            found[address] = _describe(blocking)
    with capsys.disabled():
        sys.stdout.write(
            f"\naxe-core over the strategy, result and sweep pages: "
            f"{dict(by_impact) or 'no'} violations\n"
        )
    assert found == {}, found


def test_the_live_pages_have_no_serious_or_critical_axe_violation(
    page: Page, server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The live list with a run in it (its Stop button, gate and state pills) and the run's
    page with its detail, parameter form, pushed and recorded signals."""
    key = server.create_key("a11y-live", tier="elite")
    headers = {"Authorization": f"Bearer {server.token(key)}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as client:
        strategy = client.post(
            "/strategy",
            content=source("live_every_bar.java"),
            headers={"Content-Type": "text/plain"},
        ).json()["strategyId"]
        source_ = {"venueType": "cex", "exchange": "sim", "segment": "spot", "type": "kline"}
        started = client.post(
            f"/strategy/{strategy}/live",
            json={"sources": [{**source_, "instruments": ["BTC/USDT"]}], "relay": True},
        )
        assert started.status_code == 201, started.text
        run_id = started.json()["runId"]
        try:
            origin = server.base_url.removesuffix("/v1")
            page.goto(origin + "/")
            page.fill("#apikey", key)
            page.click("#signin button")
            page.wait_for_selector("#tier")
            found: dict[str, str] = {}
            by_impact: Counter[str] = Counter()
            pages = {
                "#/live": f'#live-runs tr[data-id="{run_id}"] button.stop',
                f"#/live/{run_id}": "#params-form",
            }
            for address, ready in pages.items():
                page.goto(f"{origin}/{address}")
                page.wait_for_selector(ready, timeout=60_000)
                if address != "#/live":  # the channel is up: its status line is final
                    page.wait_for_function(
                        "() => document.querySelector('#live-status').dataset.state"
                        " === 'subscribed'",
                        timeout=60_000,
                    )
                violations = _violations(page)
                by_impact.update(str(v.get("impact")) for v in violations)
                blocking = [v for v in violations if v.get("impact") in BLOCKING]
                if blocking:
                    found[address] = _describe(blocking)
        finally:
            client.delete(f"/strategy/{strategy}/live")
    with capsys.disabled():
        sys.stdout.write(
            f"\naxe-core over the live list and run pages: {dict(by_impact) or 'no'} violations\n"
        )
    assert found == {}, found
