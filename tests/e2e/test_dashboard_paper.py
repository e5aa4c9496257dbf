"""Black-box: the paper trading section of a live run's page in Debian's Chromium (issue 29,
point 8).

One server whose market clock runs 120 times faster than the wall (a market minute, and so a
mark of the open positions, every half second), one paper run shared by the tests: a strategy
that buys up bars and sells down bars, and only buys once told ``hold`` (its position then
stays open and is marked). What is asserted is what a user sees, against the REST reads of the
same moment: the account's figures, its open positions, its KPIs, its curve's points; that the
section follows the run without a reload and stops reading when the run ends or the page is
left; and that a run without paper has no paper section at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Request

from tests.e2e.test_dashboard_views import WIDER_THAN_VIEWPORT
from tests.support.chromium import require_chromium
from tests.support.live import LiveUser
from tests.support.server import LiveServer

require_chromium()

WIDE, NARROW = 1400, 390
WAIT_MS = 90_000
PAPER = {"initialFunding": 1000, "feeRate": 0.001}
SCREENSHOTS = Path("/tmp")
MINUS = "\u2212"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(
        tmp_path_factory.mktemp("dashboard-paper"),
        extra_env={"BACKTESTD_LIVE_CLOCK_RATE": "120", "BACKTESTD_LIVE_LEASE_SECONDS": "3"},
    )
    live.start()
    yield live
    live.stop()


@dataclass
class PaperRun:
    user: LiveUser
    strategy_id: str
    run_id: str


@pytest.fixture(scope="module")
def paper_run(server: LiveServer) -> Iterator[PaperRun]:
    """The shared paper run, once it has closed a few trades."""
    user = LiveUser(server, "paper-dash-ann")
    strategy = user.register("live_flip_hold.java")
    started = user.start(strategy, paper=PAPER, warmFrom=0, sandboxMinutes=5, name="paper dash")
    assert started.status_code == 201, started.text
    run = PaperRun(user, strategy, started.json()["runId"])
    try:
        _wait_paper(run, lambda a: a["trades"] >= 2)
        yield run
    finally:
        user.client.delete(f"/strategy/{strategy}/live")


class PaperReads:
    """The page's reads of the paper routes, as they are sent."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def count(self, request: Request) -> None:
        if "/paper" in request.url:
            self.urls.append(request.url)


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[tuple[Page, PaperReads]]:
    """A page whose every request stays on the server's origin and that raises nothing."""
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    tab = context.new_page()
    origin = server.base_url.removesuffix("/v1")
    problems: list[str] = []
    reads = PaperReads()
    tab.on("request", lambda r: None if r.url.startswith(origin) else problems.append(r.url))
    tab.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    tab.on("request", reads.count)
    yield tab, reads
    context.close()
    assert problems == [], "the dashboard must load nothing from elsewhere and raise no errors"


def _wait_paper(
    run: PaperRun, done: Callable[[dict[str, Any]], bool], timeout: float = 60
) -> dict[str, Any]:
    """The run's only paper account, once ``done(account)``."""
    deadline = time.monotonic() + timeout
    while True:
        answer = run.user.client.get(f"/live/{run.run_id}/paper")
        assert answer.status_code == 200, answer.text
        accounts = answer.json()["accounts"]
        if accounts and done(accounts[0]):
            return dict(accounts[0])
        assert time.monotonic() < deadline, f"the paper account never got there: {accounts}"
        time.sleep(0.3)


def _sign_in(tab: Page, server: LiveServer, key: str) -> None:
    tab.goto(server.base_url.removesuffix("/v1") + "/")
    tab.fill("#apikey", key)
    tab.click("#signin button")
    tab.wait_for_selector("#tier")


def _open(tab: Page, server: LiveServer, address: str, ready: str) -> None:
    tab.goto(f"{server.base_url.removesuffix('/v1')}/{address}")
    tab.wait_for_selector(ready, timeout=WAIT_MS)


def _fixed(value: float, digits: int = 2) -> str:
    """format.js ``fixed``: thousands separators, half away from zero on the double's exact
    value (as toLocaleString rounds), a true minus sign, no negative zero."""
    exact = Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    text = f"{exact:,.{digits}f}"
    if text.startswith("-") and Decimal(text.replace(",", "")) == 0:
        text = text[1:]
    return text.replace("-", MINUS)


def _money(value: float, currency: str) -> str:
    return f"{_fixed(value)} {currency}"


def _price(value: float) -> str:
    return _fixed(value, 2 if abs(value) >= 100 else 4 if abs(value) >= 1 else 8)


def _cell(tab: Page, selector: str) -> str:
    return tab.inner_text(selector).strip()


def test_a_run_without_paper_has_no_paper_section_and_one_without_fills_says_what_to_expect(
    page: tuple[Page, PaperReads], server: LiveServer
) -> None:
    tab, reads = page
    user = LiveUser(server, "paper-dash-bo")
    plain = user.register("live_every_bar.java")
    quiet = user.register("live_info_only.java")
    try:
        started = user.start(plain, relay=False, name="no paper")
        assert started.status_code == 201, started.text
        run_id = started.json()["runId"]
        _sign_in(tab, server, user.key)
        _open(tab, server, f"#/live/{run_id}", "#run-fields")
        tab.wait_for_function(
            "() => document.querySelector('#run-state')?.textContent === 'RUNNING'",
            timeout=WAIT_MS,
        )
        tab.wait_for_timeout(2500)  # at least one refresh of the page after the first render
        assert tab.locator("#paper, #paper-accounts, .paper-account").count() == 0
        assert "Paper" not in tab.inner_text("#view")
        assert reads.urls == [], "a run without paper must not read the paper routes"
        user.stop(plain)

        # started from the form's paper block: a refusal is the service's message, word for
        # word; then a run that never trades says what to expect
        sent: list[dict[str, Any]] = []
        tab.on(
            "request",
            lambda r: sent.append(r.post_data_json)
            if r.method == "POST" and r.url.endswith("/live")
            else None,
        )
        _open(tab, server, "#/live", "#live-form #paper-block")
        tab.select_option("#live-form select[name=strategy]", quiet)
        tab.click("#paper-block summary")
        tab.fill("#live-form input[name=paperFunding]", "0")
        assert tab.is_checked("#live-form input[name=paper]")  # a paper field turns it on
        tab.select_option("#live-form select[name=paperOutput]", "mix")
        tab.set_viewport_size({"width": NARROW, "height": 844})
        tab.locator("#paper-block").screenshot(path=str(SCREENSHOTS / "paper-dash-form-390.png"))
        width = tab.evaluate("document.documentElement.scrollWidth")
        assert width <= NARROW, tab.evaluate(WIDER_THAN_VIEWPORT)
        tab.set_viewport_size({"width": WIDE, "height": 900})
        tab.click("#live-form button[type=submit]")
        tab.wait_for_selector("#live-error:not(:empty)")
        assert sent[-1]["paper"] == {"initialFunding": 0, "accounts": "currency", "output": "mix"}
        refusal = user.client.post(f"/strategy/{quiet}/live", json=sent[-1])
        assert refusal.status_code == 400
        assert tab.inner_text("#live-error") == refusal.json()["message"]
        assert "initialFunding" in refusal.json()["message"]
        tab.fill("#live-form input[name=paperFunding]", "250")
        tab.click("#live-form button[type=submit]")
        tab.wait_for_selector("#paper-note[data-accounts]", timeout=WAIT_MS)
        quiet_id = tab.url.split("#/live/")[1]
        started_paper = user.run(quiet_id)["paper"]
        assert (started_paper["initialFunding"], started_paper["output"]) == (250.0, "mix")
        assert started_paper["accounts"] == "currency"
        user.wait_run(quiet_id, lambda r: (r.get("stats") or {}).get("processed", 0) > 0)
        tab.wait_for_timeout(2500)  # a refresh after the run has had live updates
        assert user.client.get(f"/live/{quiet_id}/paper").json()["accounts"] == []
        note = _cell(tab, "#paper-note")
        assert note.startswith("No fills yet: the first fill appears when the strategy emits")
        assert tab.locator(".paper-account").count() == 0
        assert "250.00 of each account's currency" in _cell(tab, "#paper-config")
    finally:
        user.client.delete(f"/strategy/{plain}/live")
        user.client.delete(f"/strategy/{quiet}/live")


def test_the_paper_section_follows_the_run_without_a_reload(
    page: tuple[Page, PaperReads], server: LiveServer, paper_run: PaperRun
) -> None:
    tab, reads = page
    _sign_in(tab, server, paper_run.user.key)
    _open(tab, server, f"#/live/{paper_run.run_id}", ".paper-account .paper-equity")
    assert tab.get_attribute(".paper-account", "data-currency") == "USDT"
    assert _cell(tab, ".paper-funding") == "1,000.00 USDT"
    tab.evaluate("window.notReloaded = true")
    trades = int(_cell(tab, ".paper-trades"))
    # a later fill closes a trade: the numbers move without a reload
    tab.wait_for_function(
        "n => Number(document.querySelector('.paper-trades')?.textContent) > n",
        arg=trades,
        timeout=WAIT_MS,
    )
    assert tab.evaluate("window.notReloaded === true")
    assert tab.locator(".paper-chart svg.chart").count() == 1
    curve_reads = [u for u in reads.urls if "/paper/equity" in u]
    assert len(curve_reads) >= 2, "the curve is read again when the account moves"

    # hold: the strategy only buys, the position stays open and the minute marks value it
    held = paper_run.user.client.put(
        f"/live/{paper_run.run_id}/params", json={"params": {"hold": True}}
    )
    assert held.status_code == 200, held.text
    tab.wait_for_selector(
        ".paper-positions tr[data-instrument='BTC/USDT'] td.unrealised:not([data-value=''])",
        timeout=WAIT_MS,
    )
    assert _cell(tab, ".paper-positions td.side").startswith("long ")
    assert _cell(tab, ".paper-unrealised").endswith(" USDT")
    assert tab.locator(".paper-kpis td[data-metric=pnlTotal]").count() == 1

    # both widths: no sideways scroll of the page; tables scroll inside their card
    tab.screenshot(path=str(SCREENSHOTS / f"paper-dash-{WIDE}.png"), full_page=True)
    tab.set_viewport_size({"width": NARROW, "height": 844})
    tab.reload()
    tab.wait_for_selector(".paper-account .paper-chart svg.chart", timeout=WAIT_MS)
    width = tab.evaluate("document.documentElement.scrollWidth")
    tab.screenshot(path=str(SCREENSHOTS / f"paper-dash-{NARROW}.png"), full_page=True)
    wide = tab.evaluate(WIDER_THAN_VIEWPORT) if width > NARROW else []
    assert width <= NARROW, f"the run's page scrolls sideways at {NARROW} px: {width}: {wide}"

    # left for another page: the paper routes are not read any more
    tab.click("nav >> text=Live runs")
    tab.wait_for_selector("#live-runs")
    tab.wait_for_timeout(500)  # a read already under way when the page was left
    left_at = len(reads.urls)
    tab.wait_for_timeout(4000)
    assert reads.urls[left_at:] == []


def test_the_paper_section_shows_what_the_rest_reads_say(
    page: tuple[Page, PaperReads], server: LiveServer, paper_run: PaperRun
) -> None:
    tab, reads = page
    client, run_id = paper_run.user.client, paper_run.run_id
    _sign_in(tab, server, paper_run.user.key)
    _open(tab, server, f"#/live/{run_id}", ".paper-account .paper-chart svg.chart")
    # stopped elsewhere: the page follows, reads the book's last state and stops reading
    paper_run.user.stop(paper_run.strategy_id)
    tab.wait_for_function(
        "() => document.querySelector('#refresh-note')?.textContent"
        " === 'the run has ended: nothing changes any more'",
        timeout=WAIT_MS,
    )
    tab.wait_for_timeout(500)  # the last curve read, started with the last account read
    read_so_far = len(reads.urls)
    paper = client.get(f"/live/{run_id}/paper").json()
    (account,) = paper["accounts"]
    currency = account["currency"]

    assert _cell(tab, ".paper-equity") == _money(account["equity"], currency)
    assert _cell(tab, ".paper-realised") == _money(account["realisedPnl"], currency)
    if "unrealisedPnl" in account:
        assert _cell(tab, ".paper-unrealised") == _money(account["unrealisedPnl"], currency)
        assert _cell(tab, ".paper-total") == _money(account["totalPnl"], currency)
    else:
        assert "not known until the next minute mark" in _cell(tab, ".paper-unrealised")
    assert int(_cell(tab, ".paper-trades")) == account["trades"]

    # the open positions, row for row
    rows = tab.locator(".paper-positions tbody tr[data-instrument]")
    assert rows.count() == len(account["openPositions"]) >= 1  # held since the test before
    for index, position in enumerate(account["openPositions"]):
        row = rows.nth(index)
        assert row.get_attribute("data-instrument") == position["instrument"]
        side = "long" if position["base"] >= 0 else "short"
        quantity = _fixed(abs(position["base"]), 8)
        assert row.locator("td.side").inner_text().strip() == f"{side} {quantity}"
        assert float(row.locator("td.side").get_attribute("data-value") or "") == position["base"]
        entry = abs(position["cost"] / position["base"])
        assert row.locator("td.entry").inner_text().strip() == _price(entry)
        if "markPrice" in position:
            assert row.locator("td.mark").inner_text().startswith(_price(position["markPrice"]))
            unrealised = _money(position["unrealisedPnl"], currency)
            assert row.locator("td.unrealised").inner_text().strip() == unrealised

    # the KPIs, with the backtest result page's labels and units
    kpi = account["kpi"]
    assert _cell(tab, ".paper-kpis td[data-metric=pnlTotal]") == _money(kpi["pnlTotal"], currency)
    assert _cell(tab, ".paper-kpis td[data-metric=totalTrades]") == str(kpi["totalTrades"])
    assert _cell(tab, ".paper-kpis td[data-metric=maxDrawdownPercent]") == (
        f"{_fixed(kpi['maxDrawdownPercent'])} %"
    )
    assert (
        _cell(tab, ".paper-kpis td[data-metric=winRate]") == f"{_fixed(kpi['winRate'] * 100, 1)} %"
    )
    labels = tab.locator(".paper-kpis th").all_inner_texts()
    assert labels[:4] == ["PnL", "PnL %", "Trades", "Win rate"]
    shown = tab.locator(".paper-kpis td[data-metric][data-value]").evaluate_all(
        "cells => cells.map(c => [c.dataset.metric, Number(c.dataset.value)])"
    )
    assert shown
    assert all(kpi[name] == value for name, value in shown)

    # the chart: as many points as the equity route gives for the page's own query
    query = tab.get_attribute(".paper-chart", "data-query") or ""
    assert "outMode=SHORT" in query
    assert "resample=" in query
    curve = client.get(f"/live/{run_id}/paper/equity?{query}").json()
    assert len(curve["timestamps"]) > 1
    svg = tab.locator(".paper-chart svg.chart")
    assert svg.get_attribute("data-points") == str(len(curve["timestamps"]))
    assert svg.get_attribute("data-gaps") == str(len(curve["gaps"]))

    # nothing more is read once the run has ended, nor after the page is left
    tab.wait_for_timeout(3000)
    assert len(reads.urls) == read_so_far, reads.urls[read_so_far:]


def test_a_gap_in_the_curve_breaks_the_line_there(
    page: tuple[Page, PaperReads], server: LiveServer
) -> None:
    """The page's own chart code, in the page: a gap reported by the equity route (a takeover
    lost the open positions) is a break in the line with a mark, never a joined segment."""
    tab, _ = page
    user = LiveUser(server, "paper-dash-cy")
    _sign_in(tab, server, user.key)
    drawn = tab.evaluate(
        """async () => {
          const { lineChart } = await import('/assets/lib/charts.js');
          const box = document.createElement('div');
          document.querySelector('#view').appendChild(box);
          lineChart(box, { xs: [0, 60e3, 120e3, 180e3, 240e3], ys: [100, 101, 102, 99, 98],
                           gaps: [150e3] });
          const svg = box.querySelector('svg');
          return { moves: (svg.querySelector('path.series').getAttribute('d').match(/M/g)).length,
                   marks: svg.querySelectorAll('line.gap').length, gaps: svg.dataset.gaps };
        }"""
    )
    assert drawn == {"moves": 2, "marks": 1, "gaps": "1"}
