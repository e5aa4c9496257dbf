"""Black-box: the dashboard's views judged in Chromium at 1400 and 390 px (issue 27, point 2).

The work is set up through the public API, as an SDK user would (so nothing is remembered by
the page), and each view is opened by its address. Every test saves screenshots at both widths
(to pytest's tmp_path) and asserts what can be measured: no sideways scroll at 390 px, the code
viewer's text is the source, numbers are formatted, scales and legends are there, dates are
inside the run's window.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.test_dashboard import sign_in  # skips the module without Chromium
from tests.support.chromium import require_chromium
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

require_chromium()

WIDE, NARROW = 1400, 390
TERMINAL = ("Completed", "Failed", "Aborted")
RUN_HOURS = 30  # longer than the 24 hours the price chart used to stop at
MINUS = "\u2212"


def _hours_ago(hours: int) -> str:
    at = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=hours)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _ms(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def _span(svg: Any) -> tuple[int, int]:
    """The time range a chart draws (its data-from and data-to, epoch ms)."""
    return int(svg.get_attribute("data-from") or 0), int(svg.get_attribute("data-to") or 0)


def _poll(client: httpx.Client, path: str, done: Any, timeout: float = 300) -> Any:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        response = client.get(path)
        if response.status_code == 200 and done(response.json()):
            return response.json()
        pauses.sleep()
    raise AssertionError(f"{path} not done after {timeout}s")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("dashboard-views"))
    live.start()
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == [], "the dashboard raised errors"


@pytest.fixture(scope="module")
def work(server: LiveServer) -> dict[str, Any]:
    """One user's work, all through the API: two strategies, a 30-hour prepare, an execute
    with params and stored signals, a grid sweep and a walk-forward sweep."""
    key = server.create_key("views-vic", tier="pro")
    headers = {"Authorization": f"Bearer {server.token(key)}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as client:
        text = {"Content-Type": "text/plain"}
        java = client.post("/strategy", content=source("ema_cross.java"), headers=text)
        qts = client.post("/strategy", content=source("ema_cross.qts"), headers=text)
        strategy = java.json()["strategyId"]
        window = {"instrument": "BTC/USDT", "from": _hours_ago(RUN_HOURS + 2), "to": _hours_ago(2)}
        prepare = client.post("/backtest/sim/ticker/prepare", json=window).json()["jobId"]
        _poll(client, f"/backtest/sim/ticker/prepare/{prepare}", lambda b: b["status"] in TERMINAL)
        body = {
            "prepareJobId": prepare,
            "strategyId": strategy,
            "storeSignals": True,
            "params": {"fast": 5},
        }
        execute = client.post("/backtest/sim/ticker/execute", json=body).json()["jobId"]
        result = _poll(client, f"/backtest/sim/ticker/execute/{execute}", lambda b: "results" in b)
        axes = {"fast": {"from": 5, "to": 15, "step": 5}, "slow": {"values": [20, 30]}}
        sweep = client.post(
            f"/backtest/sim/ticker/executeSweep/{prepare}",
            json={"strategyId": strategy, "sweep": {"params": axes}},
        ).json()["sweepId"]
        folds = client.post(
            f"/backtest/sim/ticker/executeSweep/{prepare}",
            json={
                "strategyId": strategy,
                "sweep": {"params": axes, "sampler": "random", "samples": 4},
                "walkForward": {"folds": 2},
            },
        ).json()["sweepId"]
        for sweep_id in (sweep, folds):
            _poll(
                client,
                f"/backtest/sim/ticker/executeSweep/{prepare}/{sweep_id}",
                lambda b: b["status"] != "RUNNING",
            )
    return {
        "key": key,
        "strategy": strategy,
        "qts": qts.json()["strategyId"],
        "prepare": prepare,
        "window": window,
        "execute": execute,
        "result": result,
        "sweep": sweep,
        "folds": folds,
    }


# The innermost elements that reach past the viewport's right edge (what to fix when it scrolls).
WIDER_THAN_VIEWPORT = """() => {
  const past = (e) => e.getBoundingClientRect().right > innerWidth + 0.5;
  const clipped = (e) => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    return false;
  };
  const spills = (e) => getComputedStyle(e).overflowX === 'visible'
    && e.getBoundingClientRect().left + e.scrollWidth > innerWidth + 0.5;
  const wide = (e) => (past(e) || spills(e)) && !clipped(e);
  return [...document.querySelectorAll('body *')].filter(wide)
    .slice(-5).map((e) => `${e.tagName}.${e.className.baseVal ?? e.className}#${e.id}`
      + ` ${Math.round(e.getBoundingClientRect().right)}`);
}"""


# Texts of an svg that reach outside its viewBox (a clipped label), as "text: x..right".
CLIPPED_TEXTS = """(svg) => { const box = svg.viewBox.baseVal;
  return [...svg.querySelectorAll('text')].map((t) => [t.textContent, t.getBBox()])
    .filter(([, b]) => b.x < box.x - 0.5 || b.x + b.width > box.x + box.width + 0.5)
    .map(([text, b]) => `${text}: ${Math.round(b.x)}..${Math.round(b.x + b.width)}`); }"""


def _open(page: Page, server: LiveServer, key: str, address: str, ready: str) -> None:
    """Sign in (once per page) and open ``address``, waiting for ``ready``."""
    if (
        page.url.startswith("about:")
        or page.evaluate("sessionStorage.getItem('backtestd.jwt')") is None
    ):
        page.goto(server.base_url.removesuffix("/v1") + "/")
        page.fill("#apikey", key)
        page.click("#signin button")
        page.wait_for_selector("#tier")
    # Hash navigation keeps the previous view until the new one renders: remove what ``ready``
    # matches there, so the wait below cannot be satisfied by the page being left.
    target = f"{server.base_url.removesuffix('/v1')}/{address}"
    if page.url != target:  # the same address would not render again
        page.evaluate("(sel) => document.querySelectorAll(sel).forEach((e) => e.remove())", ready)
    page.goto(target)
    try:
        page.wait_for_selector(ready, timeout=180_000)
    except PlaywrightTimeout:
        errors = page.evaluate(
            "() => [...document.querySelectorAll('.error')].map(e => e.id + ': ' + e.textContent)"
        )
        raise AssertionError(
            f"{ready} never appeared on {address}; errors shown: {errors}"
        ) from None


def _both_widths(page: Page, out: Path, name: str, ready: str) -> None:
    """Screenshots at 1400 and 390 px; at 390 px the page must not scroll sideways."""
    page.set_viewport_size({"width": WIDE, "height": 900})
    page.reload()
    page.wait_for_selector(ready, timeout=180_000)
    page.screenshot(path=str(out / f"{name}-{WIDE}.png"), full_page=True)
    page.set_viewport_size({"width": NARROW, "height": 844})
    page.reload()
    page.wait_for_selector(ready, timeout=180_000)
    page.wait_for_load_state("networkidle")
    width = page.evaluate("document.documentElement.scrollWidth")
    page.screenshot(path=str(out / f"{name}-{NARROW}.png"), full_page=True)
    wide = page.evaluate(WIDER_THAN_VIEWPORT) if width > NARROW else []
    assert width <= NARROW, f"{name} scrolls sideways at {NARROW} px: {width} px wide: {wide}"


def test_the_code_viewer_shows_the_source_exactly_with_strings_coloured(
    page: Page, server: LiveServer, work: dict[str, Any], tmp_path: Path
) -> None:
    for strategy, name in ((work["strategy"], "ema_cross.java"), (work["qts"], "ema_cross.qts")):
        _open(page, server, work["key"], f"#/strategy/{strategy}", "#code")
        lines = page.locator("#code .ln").evaluate_all("ls => ls.map(l => l.textContent)")
        assert "\n".join(lines) == source(name)
        assert 'class="' not in page.inner_text("#code")
        assert page.locator("#code .str").count() >= 2
        assert page.locator("#code .kw").count() > 5
        strings = page.locator("#code .str").all_inner_texts()
        assert all(s.startswith('"') and s.endswith('"') for s in strings), strings
    assert page.inner_text("#strategy-name") == "EMA cross"
    _both_widths(page, tmp_path, "strategy", "#code")
    _open(page, server, work["key"], "#/strategies", "#strategy-table")
    names = page.locator("#strategy-table td.name").all_inner_texts()
    assert sorted(names) == ["EMA cross", "EmaCross"]
    _both_widths(page, tmp_path, "strategies", "#strategy-table")


def test_jobs_and_sweeps_started_through_the_api_are_listed_and_only_for_their_owner(
    page: Page, browser: Browser, server: LiveServer, work: dict[str, Any], tmp_path: Path
) -> None:
    _open(page, server, work["key"], "#/backtests", f'#job-table tr[data-id="{work["execute"]}"]')
    execute = page.locator(f'#job-table tr[data-id="{work["execute"]}"]')
    assert "EmaCross (fast=5) on BTC/USDT" in execute.inner_text()
    assert "Completed" in execute.inner_text()
    prepare = page.locator(f'#job-table tr[data-id="{work["prepare"]}"]')
    assert "sim ticker" in prepare.inner_text()
    assert "%" in prepare.locator(".coverage").inner_text()
    options = page.locator("#execute-form select[name=prepare] option").all_inner_texts()
    assert len(options) == 1
    assert "BTC/USDT" in options[0]
    strategies = page.locator("#execute-form select[name=strategy] option").all_inner_texts()
    assert sorted(s.split(" (")[0] for s in strategies) == ["EMA cross", "EmaCross"]
    _both_widths(page, tmp_path, "backtests", "#job-table tbody tr")
    _open(page, server, work["key"], "#/sweeps", "#sweep-list tbody tr")
    rows = page.locator("#sweep-list tbody tr")
    assert rows.count() == 2
    assert all("EmaCross" in t for t in rows.all_inner_texts())
    href = page.get_attribute(f'#sweep-list tr[data-id="{work["sweep"]}"] a', "href")
    assert href == f"#/sweep/sim/ticker/{work['prepare']}/{work['sweep']}"
    _both_widths(page, tmp_path, "sweeps", "#sweep-list tbody tr")
    # another user, in another browser context, sees none of it
    other = browser.new_context(viewport={"width": WIDE, "height": 900}).new_page()
    sign_in(other, server, "views-wes")
    other.click("nav >> text=Backtests")
    other.wait_for_selector("#job-table tbody tr.empty")
    other.click("nav >> text=Sweeps")
    other.wait_for_selector("#sweep-list >> text=none yet")
    other.context.close()


def test_the_result_shows_formatted_metrics_params_config_linked_zoom_and_every_hour(
    page: Page, server: LiveServer, work: dict[str, Any], tmp_path: Path
) -> None:
    _open(page, server, work["key"], f"#/result/sim/ticker/{work['execute']}", "#price-chart svg")
    results = work["result"]["results"]
    assert results["totalTrades"] > 0
    shown = {
        k: page.inner_text(f"[data-metric={k}]")
        for k in ("pnlTotal", "pnlTotalPercent", "winRate", "sharpeRatio", "maxDrawdownPercent")
    }
    money = rf"^{MINUS}?\d[\d,]*\.\d\d USDT$"
    assert re.match(money, shown["pnlTotal"]), shown
    assert re.match(rf"^{MINUS}?\d[\d,]*\.\d\d %$", shown["pnlTotalPercent"]), shown
    assert shown["winRate"] == f"{results['winRate'] * 100:.1f} %"
    assert shown["sharpeRatio"] == f"{results['sharpeRatio']:.2f}".replace("-", MINUS)
    pnl = float(shown["pnlTotal"].split()[0].replace(MINUS, "-").replace(",", ""))
    assert pnl == pytest.approx(results["pnlTotal"], abs=0.006)
    # the run: strategy name, params (the one set, the other at its default), settings, window
    assert page.inner_text("#result-strategy") == "EmaCross"
    assert page.inner_text("#run-params [data-param=fast]") == "5"
    assert page.inner_text("#run-params [data-param=slow]") == "21"
    assert "default" in page.locator("#run-params tr", has_text="slow").inner_text()
    assert page.inner_text("#initial-funding") == "100.00"
    assert page.inner_text("#fee-rate").startswith("0.100 %")
    assert "BTC/USDT" in page.inner_text("#run-window")
    # the drawdown: the fill has no stroke; its line ends at the run's final drawdown
    assert page.locator("#drawdown-chart path.dd").evaluate("p => getComputedStyle(p).stroke") == (
        "none"
    )
    equities = [p["equity"] for p in results["equityCurve"]["points"]]
    final = (equities[-1] / max(equities) - 1) * 100
    end = float(page.get_attribute("#drawdown-chart path.dd-line", "data-end") or "nan")
    assert end == pytest.approx(final, abs=1e-9)
    # zooming the equity zooms the drawdown to the same range; a double click resets both
    equity = page.locator("#equity-chart svg")
    box = equity.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + 100)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + 100)
    page.mouse.up()
    drawdown = page.locator("#drawdown-chart svg")
    full = str(results["equityCurve"]["points"][0]["timestamp"])
    # the charts redraw after each event: wait for it rather than read the attributes at once
    # (a double click on the curve itself once left both charts zoomed: charts.js, 11-30)
    expect(equity).not_to_have_attribute("data-from", full)
    zoomed = [equity.get_attribute(a) for a in ("data-from", "data-to")]
    assert int(zoomed[0] or 0) > int(full)
    expect(drawdown).to_have_attribute("data-from", zoomed[0] or "")
    expect(drawdown).to_have_attribute("data-to", zoomed[1] or "")
    equity.dblclick()
    expect(equity).to_have_attribute("data-from", full)
    expect(drawdown).to_have_attribute("data-from", full)
    assert drawdown.get_attribute("data-to") == equity.get_attribute("data-to")
    # the price covers the whole 30-hour run, not its first 24 hours
    price = page.locator("#price-chart svg")
    start, stop = _ms(work["window"]["from"]), _ms(work["window"]["to"])
    first, last = _span(price)
    assert start <= first < start + 3600_000
    assert stop - 3600_000 < last <= stop
    assert f"over {RUN_HOURS} hours" in page.inner_text("#price-note")
    _both_widths(page, tmp_path, "result", "#price-chart svg")


def test_the_sweep_heatmap_has_a_scale_values_and_signed_colours_and_marginals_a_legend(
    page: Page, server: LiveServer, work: dict[str, Any], tmp_path: Path
) -> None:
    address = f"#/sweep/sim/ticker/{work['prepare']}/{work['sweep']}"
    _open(page, server, work["key"], address, "#trial-chart svg")
    heatmap = page.locator("#heatmaps svg")
    assert heatmap.count() == 1
    cells = heatmap.locator("rect.cell")
    assert cells.count() == 6
    values = [float(v) for v in cells.evaluate_all("cs => cs.map(c => c.dataset.value)")]
    labels = heatmap.locator("text.cell-value").all_text_contents()
    shown = [float(t.replace(MINUS, "-")) for t in labels]
    assert shown == pytest.approx(values, abs=0.0051)
    assert heatmap.locator("g.colour-scale rect").count() > 10
    scale = heatmap.locator("g.colour-scale")
    low, high = (float(scale.get_attribute(a) or 0) for a in ("data-min", "data-max"))
    assert low == -high
    fills = cells.evaluate_all("cs => cs.map(c => c.getAttribute('fill'))")
    for value, fill in zip(values, fills, strict=True):
        r, g, _ = (int(x) for x in re.findall(r"\d+", fill))
        if value < 0:
            assert r > g, f"a negative mean ({value}) is drawn {fill}, not red"
        elif value > 0:
            assert g > r, f"a positive mean ({value}) is drawn {fill}, not green"
    legend = page.locator("#marginals .marginal-legend li").all_inner_texts()
    assert legend == ["best", "mean", "worst"]
    for svg in page.locator("#marginals svg, #heatmaps svg").all():
        assert svg.evaluate(CLIPPED_TEXTS) == []
    # leaderboard numbers are rounded for reading, exact in data-value
    for text in page.locator("#leaderboard td[data-col=sharpe]").all_inner_texts():
        assert re.match(rf"^{MINUS}?\d+\.\d\d$", text), text
    assert "," in page.inner_text("#leaderboard tbody tr td code") or "=" in page.inner_text(
        "#leaderboard tbody tr td code"
    )
    # the ranking select says what the note says
    assert page.input_value("#lb-ranking") == "plateau"
    assert "plateau ranking" in page.inner_text("#leaderboard-note")
    # cancelling a finished sweep says so instead of pretending to cancel
    page.click("#cancel-sweep")
    page.wait_for_function(
        "() => document.querySelector('#toast').textContent.includes('already finished')",
        timeout=15_000,
    )
    assert not page.is_visible("#sweep-error:not(:empty)")
    _both_widths(page, tmp_path, "sweep", "#trial-chart svg")


def test_walk_forward_folds_are_dated_inside_the_run_and_the_ranking_select_agrees(
    page: Page, server: LiveServer, work: dict[str, Any], tmp_path: Path
) -> None:
    address = f"#/sweep/sim/ticker/{work['prepare']}/{work['folds']}"
    _open(page, server, work["key"], address, "#fold-chart svg")
    chart = page.locator("#fold-chart svg")
    assert chart.get_attribute("data-folds") == "2"
    start, stop = _ms(work["window"]["from"]), _ms(work["window"]["to"])
    first, last = _span(chart)
    assert start <= first < last <= stop
    ticks = chart.locator("text.tick").all_text_contents()
    year = work["window"]["from"][:4]
    assert ticks
    assert all(t.startswith(year) for t in ticks), ticks
    assert page.locator("#fold-table tbody tr").count() == 2
    assert all("fast=" in t for t in page.locator("#fold-table tbody td code").all_inner_texts())
    # the svg holds no parameter text that could be clipped: it is in the table
    assert "fast" not in chart.inner_html()
    assert chart.evaluate(CLIPPED_TEXTS) == []
    assert page.input_value("#lb-ranking") == "raw"
    assert "raw ranking" in page.inner_text("#leaderboard-note")
    assert page.locator("#fold-note").inner_text() == ""  # exact times, not approximate
    _both_widths(page, tmp_path, "walk-forward", "#fold-chart svg")


def test_a_page_left_while_it_loads_never_draws_over_the_next_one(
    page: Page, server: LiveServer, work: dict[str, Any]
) -> None:
    """A user who moves on while a page still loads stays on the page chosen: the left view's late
    answer draws nothing and its errors are not shown. (CI saw the account page, still loading from
    the sign-in, replace a sweep page, whose own late code then showed "Cannot set properties of
    null" instead of the folds.) The left view's requests are held until the next page is drawn."""
    key, code_page = work["key"], f"#/strategy/{work['strategy']}"
    _open(page, server, key, "#/strategies", "#strategy-table")
    held: list[Route] = []
    page.route("**/v1/account/usage", lambda route: held.append(route))
    page.evaluate("location.hash = '#/account'")
    page.wait_for_function("() => document.querySelector('#view').textContent !== ''")
    while not held:
        page.wait_for_timeout(20)
    _open(page, server, key, code_page, "#code")
    page.evaluate("document.querySelector('#who').textContent = ''")
    held[0].continue_()
    # The account view writes #who, then (synchronously) its page: once #who is back, it has run.
    page.wait_for_function("() => document.querySelector('#who').textContent !== ''")
    assert page.locator("#code").count() == 1
    assert page.locator("#tier").count() == 0
    page.unroute("**/v1/account/usage")

    held.clear()
    page.route(f"**/v1/backtest/jobs/{work['prepare']}", lambda route: held.append(route))
    page.evaluate(f"location.hash = '#/sweep/sim/ticker/{work['prepare']}/{work['folds']}'")
    while not held:
        page.wait_for_timeout(20)
    _open(page, server, key, "#/strategies", "#strategy-table")
    with page.expect_response(f"**/v1/backtest/jobs/{work['prepare']}"):
        held[0].continue_()
    page.wait_for_timeout(1000)  # the left sweep view's code after that answer fails at once
    assert page.locator("#strategy-table").count() == 1
    assert page.locator("#view .error").all_inner_texts() == []


def test_a_sweep_page_left_for_another_one_leaves_it_alone(
    page: Page, server: LiveServer, work: dict[str, Any]
) -> None:
    """Two sweep pages share their elements' ids: the left one, resuming after its first answer,
    must not hang its handlers on the next one's (its Cancel would also cancel the sweep left)."""
    key, prepare = work["key"], work["prepare"]
    _open(page, server, key, "#/strategies", "#strategy-table")
    held: list[Route] = []

    def hold_first(route: Route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(f"**/v1/backtest/jobs/{prepare}", hold_first)
    page.evaluate(f"location.hash = '#/sweep/sim/ticker/{prepare}/{work['folds']}'")
    while not held:
        page.wait_for_timeout(20)
    _open(page, server, key, f"#/sweep/sim/ticker/{prepare}/{work['sweep']}", "#leaderboard-note")
    page.wait_for_function("() => document.querySelector('#leaderboard-note').textContent !== ''")
    with page.expect_response(f"**/v1/backtest/jobs/{prepare}"):
        held[0].continue_()
    page.wait_for_timeout(1000)  # the left view's code after that answer runs at once
    deletes: list[str] = []
    page.on("request", lambda r: deletes.append(r.url) if r.method == "DELETE" else None)
    page.click("#cancel-sweep")
    page.wait_for_function(
        "() => document.querySelector('#toast').textContent.includes('already finished')",
        timeout=15_000,
    )
    page.wait_for_timeout(500)
    assert [url.rsplit("/", 1)[-1] for url in deletes] == [work["sweep"]]


def test_account_market_and_datasets_views_fit_390_px(
    page: Page, server: LiveServer, work: dict[str, Any], tmp_path: Path
) -> None:
    for address, ready in (
        ("#/account", "#tier"),
        ("#/market", "#instrument-table tbody tr"),
        ("#/datasets", "#upload-form"),
    ):
        _open(page, server, work["key"], address, ready)
        _both_widths(page, tmp_path, address.strip("#/"), ready)


def _upload_dataset(server: LiveServer, key: str, rows: int) -> str:
    headers = {"Authorization": f"Bearer {server.token(key)}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as client:
        created = client.post("/datasets", json={"name": "waves", "instrument": "BTC/USDT"})
        assert created.status_code == 201, created.text
        body = created.json()
        lines = ["timestamp,close"] + [
            f"{1_740_000_000 + 60 * i},{100 + 5 * math.sin(i / 15):.4f}" for i in range(rows)
        ]
        put = httpx.put(body["upload"]["url"], content=("\n".join(lines) + "\n").encode())
        assert put.status_code in (200, 201, 204), put.text
        base = f"/datasets/{body['datasetId']}/uploads/{body['uploadId']}"
        assert client.post(f"{base}/finalize").status_code in (200, 202)
        _poll(client, base, lambda b: b["status"] in ("ready", "failed"))
        return str(body["datasetId"])


def test_a_user_dataset_is_prepared_and_backtested_from_the_form(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    key = sign_in(page, server, "views-dora")
    dataset = _upload_dataset(server, key, 600)
    page.click("nav >> text=Strategies")
    page.fill("#source", source("ema_cross.java"))
    page.click("#register")
    page.wait_for_selector("#new-strategy")
    page.click("nav >> text=Backtests")
    page.wait_for_selector("#prepare-form")
    page.select_option("#prepare-form select[name=source]", "dataset")
    assert page.locator("#prepare-form select[name=datasetId]").is_visible()
    assert page.locator("#prepare-form input[name=instrument]").is_hidden()
    assert page.input_value("#prepare-form select[name=datasetId]") == dataset
    assert page.input_value("#prepare-form input[name=from]").startswith("2025-02-19T")
    page.click("#prepare-form button")
    row = page.locator("#job-table tbody tr", has_text="dataset")
    row.locator(".status >> text=Completed").wait_for(timeout=120_000)
    assert "dataset waves" in row.inner_text()
    assert "BTC/USDT" in row.inner_text()
    option = page.locator("#execute-form select[name=prepare] option").first
    assert (option.get_attribute("value") or "").endswith("|user|ticker")
    page.click("#execute-form button")
    page.wait_for_function(  # the result view polls until the run has ended
        "() => ['Completed', 'Failed', 'Aborted'].includes("
        "document.querySelector('#result-state')?.textContent)",
        timeout=120_000,
    )
    assert page.inner_text("#result-state") == "Completed"
    assert page.url.split("#")[1].startswith("/result/user/ticker/")
    assert int(page.inner_text("[data-metric=totalTrades]")) > 0
    page.screenshot(path=str(tmp_path / "user-dataset-result.png"), full_page=True)
