"""Black-box: paper trading on live runs (spec/live-execution.md §3.11, §3.12, §6; docs/live.md,
"Paper trading"), and the proof that a paper run equals a backtest of the same updates.

One server whose market clock runs 30 times faster than the wall but starts hours *behind* it
(its anchor, the moment market and wall time agree, is 15 minutes ahead): what a live run sees
there is already a complete hour of ``sim`` history, which a backtest can prepare at once. The
``sim`` feed publishes its history rows bit for bit, so a prepare of the span a paper run saw
holds exactly the updates the run was fed.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.live import SIM_KLINE, LiveUser, live_hosts, worker_of_new_live_hosts
from tests.support.server import LiveServer, harness_environment

ROOT = Path(__file__).resolve().parents[2]
RATE = 60
AHEAD_S = 900
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
PAPER = {"initialFunding": 1000, "feeRate": 0.001, "output": "mix"}
TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    anchor = int(time.time() * 1000) + AHEAD_S * 1000
    live = LiveServer(
        tmp_path_factory.mktemp("paper-server"),
        extra_env={
            "BACKTESTD_LIVE_CLOCK_RATE": str(RATE),
            "BACKTESTD_LIVE_CLOCK_ANCHOR_MS": str(anchor),
            "BACKTESTD_LIVE_LEASE_SECONDS": "3",
            "BACKTESTD_DASK_WORKERS": "2",
        },
    )
    live.start()
    yield live
    live.stop()


MIN_TRADES = 30
"""Closed round trips a paper run needs before its equality with a backtest proves anything."""


def _of(signals: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [s for s in signals if s["type"] == "paper" and s["kind"] == kind]


def _hints(signals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in signals if s["type"] == "hint"]


def _span_ms(signals: list[dict[str, Any]]) -> int:
    hints = _hints(signals)
    return hints[-1]["eventTsMs"] - hints[0]["eventTsMs"] if hints else 0


@dataclass
class PaperRun:
    user: LiveUser
    strategy_id: str
    run_id: str
    signals: list[dict[str, Any]]
    started: dict[str, Any]


@pytest.fixture(scope="module")
def paper_run(server: LiveServer) -> PaperRun:
    """A ``mix`` paper run of a strategy that signals on every bar, over 25 minutes of market
    time: promoted to ``LIVE`` and public on the way (read by another user), then stopped."""
    user = LiveUser(server, "paper-proof")
    strategy = user.register("live_every_bar.java")
    started = user.start(
        strategy, paper=PAPER, warmFrom=0, sandboxMinutes=5, visibility="public", name="paper"
    )
    assert started.status_code == 201, started.text
    run_id = started.json()["runId"]
    user.wait_run(run_id, lambda r: r["stage"] == "LIVE", timeout=180)
    reader = LiveUser(server, "paper-public-reader")
    public = reader.client.get(f"/live/{run_id}/paper")
    assert public.status_code == 200, public.text  # public, LIVE and running: anyone reads
    assert reader.client.get(f"/live/{run_id}/paper/equity").status_code == 200
    # 25 minutes of market time and enough round trips to compare: the trades in a window
    # depend on the sim's prices there (28 in one CI run against the 30 the test asks for).
    user.wait_signals(
        run_id,
        lambda s: _span_ms(s) >= 25 * 60_000 and len(_of(s, "trade")) >= MIN_TRADES,
        timeout=300,
    )
    user.stop(strategy)
    user.wait_run(run_id, lambda r: r["state"] == "STOPPED", timeout=60)
    assert reader.client.get(f"/live/{run_id}/paper").status_code == 404  # no longer running
    return PaperRun(user, strategy, run_id, user.signals(run_id), started.json())


def _iso(ms: int) -> str:
    moment = EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _poll(client: httpx.Client, path: str, timeout: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(path)
        assert response.status_code in (200, 202), response.text
        body: dict[str, Any] = response.json()
        state = body.get("state", body)
        if response.status_code == 200 and state.get("status") in ("Completed", "Failed"):
            assert state["status"] == "Completed", body
            return body
        assert time.monotonic() < deadline, f"{path} never finished: {body}"
        time.sleep(0.5)


def test_a_paper_run_equals_a_backtest_of_the_same_updates(
    server: LiveServer, paper_run: PaperRun
) -> None:
    """Issue point 7: same signals, fills, closed trades and PnL (to 1e-9), and the KPIs whose
    definitions coincide, between the paper run and ``execute`` over a prepare of its span.

    The span is cut at the paper run's last closed trade, so the backtest ends flat: it has no
    end-of-range close (``END``), which a live run, having no end, never makes.
    """
    signals = paper_run.signals
    trades = _of(signals, "trade")
    assert len(trades) >= MIN_TRADES, f"too few trades to prove anything: {len(trades)}"
    last_exit = trades[-1]["eventTsMs"]
    hints = [h for h in _hints(signals) if h["eventTsMs"] <= last_exit]
    start, end = hints[0]["eventTsMs"] - 999, last_exit + 1  # first bar's open, last close
    assert datetime.fromtimestamp(end / 1000, UTC) < datetime.now(UTC) - timedelta(hours=1)
    client = paper_run.user.client
    prepared = client.post(
        "/backtest/sim/kline/prepare",
        json={"instrument": "BTC/USDT", "from": _iso(start), "to": _iso(end), "cadence": "1s"},
    )
    assert prepared.status_code == 202, prepared.text
    prepare_id = prepared.json()["jobId"]
    _poll(client, f"/backtest/sim/kline/prepare/{prepare_id}")
    executed = client.post(
        "/backtest/sim/kline/execute",
        json={
            "prepareJobId": prepare_id,
            "strategyId": paper_run.strategy_id,
            "storeSignals": True,
            "baseConfig": {"initialFunding": 1000, "feeRate": 0.001, "percentAmountToLock": 10},
        },
    )
    assert executed.status_code == 202, executed.text
    job = executed.json()["jobId"]
    results = _poll(client, f"/backtest/sim/kline/execute/{job}")["results"]

    # The same updates: the backtest's strategy emitted the live run's hints, one for one.
    rows = list(
        csv.DictReader(io.StringIO(client.get(f"/backtest/sim/kline/execute/{job}/signals").text))
    )
    backtest_hints = [
        (int(r["ts"]), int(r["side"]), float(r["price"])) for r in rows if int(r["side"]) != 0
    ]
    live_hints = [
        (h["eventTsMs"], 1 if h["kind"] == "BUY" else -1, float(h["order"]["price"])) for h in hints
    ]
    assert backtest_hints == live_hints

    # The same closed trades: exit times, each trade's PnL and the equity after it.
    assert results["totalTrades"] == len(trades)
    curve = results["equityCurve"]["points"]
    assert curve[0] == {"timestamp": start, "equity": 1000.0}
    assert [p["timestamp"] for p in curve[1:]] == [t["eventTsMs"] for t in trades]
    backtest_pnl = [b["equity"] - a["equity"] for a, b in zip(curve, curve[1:], strict=False)]
    paper_pnl = [t["data"]["pnl"] for t in trades]
    pnl_gap = max(abs(a - b) for a, b in zip(backtest_pnl, paper_pnl, strict=True))
    equities = [e["data"]["equity"] for e in _of(signals, "equity") if e["eventTsMs"] <= last_exit]
    equity_gap = max(abs(a - b["equity"]) for a, b in zip(equities, curve[1:], strict=True))
    assert pnl_gap <= TOLERANCE
    assert equity_gap <= TOLERANCE

    # The same fills: one entry and one exit per trade, at the hint's price, each entry
    # locking 10 % of the free balance at that moment (§6.2), as the kernel sizes it.
    fills = [f for f in _of(signals, "fill") if f["eventTsMs"] <= last_exit]
    assert len(fills) == 2 * len(trades)
    price_at = {h["eventTsMs"]: float(h["order"]["price"]) for h in hints}
    assert all(f["data"]["price"] == price_at[f["eventTsMs"]] for f in fills)
    free = 1000.0
    for entry, trade in zip(fills[::2], trades, strict=True):
        assert entry["data"]["counterAmount"] == free * (10 / 100.0)
        assert trade["data"]["enterAmount"] == entry["data"]["counterAmount"]
        free = free - trade["data"]["enterAmount"] + trade["data"]["exitAmount"]

    # KPIs where the definitions coincide (docs/live.md: Sharpe, Sortino and the drawdown
    # are measured differently on paper).
    kpi = next(k for k in reversed(_of(signals, "kpi")) if k["eventTsMs"] == last_exit)["data"]
    assert kpi["totalTrades"] == results["totalTrades"]
    assert kpi["winRate"] == results["winRate"]
    for name in ("pnlTotal", "pnlTotalPercent", "cagr"):
        assert abs(kpi[name] - results[name]) <= TOLERANCE, name
    figures = os.environ.get("BACKTESTD_TEST_PAPER_FIGURES")
    if figures:
        Path(figures).write_text(
            json.dumps(
                {
                    "trades": len(trades),
                    "fills": len(fills),
                    "hints": len(hints),
                    "marketMinutes": (last_exit - start) / 60_000,
                    "largestPnlDifference": pnl_gap,
                    "largestEquityDifference": equity_gap,
                    "pnlTotal": [kpi["pnlTotal"], results["pnlTotal"]],
                    "sharpe": [kpi["sharpeRatio"], results["sharpeRatio"]],
                    "maxDrawdown": [kpi["maxDrawdown"], results["maxDrawdown"]],
                }
            )
        )


def test_paper_accounts_and_curves_read_as_the_record_says(paper_run: PaperRun) -> None:
    client, run_id, signals = paper_run.user.client, paper_run.run_id, paper_run.signals
    assert paper_run.started["paper"] == {
        "initialFunding": 1000.0,
        "buyFeeRate": 0.001,
        "sellFeeRate": 0.001,
        "feeLeg": "RECEIVED",
        "output": "mix",
    }
    trades = _of(signals, "trade")
    paper = client.get(f"/live/{run_id}/paper").json()
    assert (paper["runId"], paper["stage"]) == (run_id, "LIVE")
    (account,) = paper["accounts"]
    assert account["currency"] == "USDT"
    assert account["trades"] == len(trades)
    assert account["gaps"] == 0
    assert abs(account["realisedPnl"] - sum(t["data"]["pnl"] for t in trades)) <= TOLERANCE
    assert account["kpi"]["totalTrades"] == len(trades)
    (instrument,) = account["instruments"]
    assert instrument["instrument"] == "BTC/USDT"
    assert instrument["realisedPnl"] == account["realisedPnl"]
    assert instrument["wins"] + instrument["losses"] == len(trades)
    last_fill = _of(signals, "fill")[-1]
    assert len(account["openPositions"]) == (1 if last_fill["data"]["side"] == "buy" else 0)

    # Mix items: never pushed, recorded right after the signal that caused them.
    for index, item in enumerate(signals):
        if item["type"] == "paper" and item["kind"] == "fill":
            cause = signals[index - 1]
            assert (cause["type"], cause["eventTsMs"]) == ("hint", item["eventTsMs"]), cause
        if item["type"] == "paper" and item["kind"] in ("equity", "mark", "kpi"):
            assert item["instrument"] is None
    marks = _of(signals, "mark")
    assert marks, "no minute was ever marked"
    assert all(m["eventTsMs"] % 60_000 == 0 for m in marks)

    # The account's curve: its equity after each closed trade and at each mark.
    whole = client.get(f"/live/{run_id}/paper/equity").json()
    expected = [
        (s["eventTsMs"], s["data"]["equity"])
        for s in signals
        if s["type"] == "paper" and s["kind"] in ("equity", "mark")
    ]
    assert (whole["measure"], whole["currency"], whole["gaps"]) == ("equity", "USDT", [])
    assert [(p["timestamp"], p["equity"]) for p in whole["points"]] == expected
    assert whole["meta"]["inputPointCount"] == len(expected)
    as_sent = client.get(f"/live/{run_id}/paper/equity", params={"measure": "realisedPnl"})
    assert as_sent.json() == whole  # what the generated client always sends: ignored here

    # Paged: raw entries, followed through _links.next, give the same curve.
    paged: list[tuple[int, float]] = []
    params: dict[str, Any] = {"limit": 7}
    while True:
        page = client.get(f"/live/{run_id}/paper/equity", params=params).json()
        paged += [(p["timestamp"], p["equity"]) for p in page["points"]]
        link = page.get("_links", {}).get("next")
        if link is None:
            break
        query = httpx.URL(link["href"]).params
        assert "measure" not in query
        assert query["limit"] == "7"
        params = dict(query)
    assert paged == expected

    # An instrument's realised PnL (points at its trades) and total PnL (and its marks).
    realised = client.get(f"/live/{run_id}/paper/equity", params={"instrument": "BTC/USDT"}).json()
    assert (realised["measure"], realised["instrument"], realised["gaps"]) == (
        "realisedPnl",
        "BTC/USDT",
        [],
    )
    running = 0.0
    for point, trade in zip(realised["points"], trades, strict=True):
        running += trade["data"]["pnl"]
        assert point["timestamp"] == trade["eventTsMs"]
        assert abs(point["equity"] - running) <= TOLERANCE
    total = client.get(
        f"/live/{run_id}/paper/equity",
        params={"instrument": "BTC/USDT", "measure": "totalPnl", "outMode": "SHORT"},
    ).json()
    assert total["measure"] == "totalPnl"
    assert total["meta"]["outMode"] == "SHORT"
    assert "points" not in total
    assert len(total["timestamps"]) == len(trades) + sum(m["data"]["openPositions"] for m in marks)

    # Shapes: resample keeps the ends, differential encodes from the second point.
    small = client.get(f"/live/{run_id}/paper/equity", params={"resample": 5}).json()
    assert small["meta"]["resampled"] is True
    assert len(small["points"]) <= 5
    assert small["points"][0] == whole["points"][0]
    assert small["points"][-1] == whole["points"][-1]
    delta = client.get(f"/live/{run_id}/paper/equity", params={"differential": "true"}).json()
    assert delta["meta"]["differential"] is True
    assert delta["points"][1]["timestamp"] == expected[1][0] - expected[0][0]

    # Refusals (400 naming the problem) and readers (404 as for signals).
    for bad, word in (
        ({"measure": "totalPnl"}, "totalPnl"),
        ({"measure": "equity"}, "measure"),
        ({"resample": 10, "limit": 5}, "resample"),
        ({"outMode": "WIDE"}, "outMode"),
        ({"instrument": "*/USDT"}, "instrument"),
        ({"instrument": "BTC/USDT", "currency": "EUR"}, "EUR"),
        ({"cursor": "nonsense"}, "cursor"),
    ):
        refused = client.get(f"/live/{run_id}/paper/equity", params=bad)
        assert refused.status_code == 400, (bad, refused.text)
        assert word in refused.json()["message"], (bad, refused.text)
    stranger = LiveUser(paper_run.user.server, "paper-stranger")
    for path in (f"/live/{run_id}/paper", f"/live/{run_id}/paper/equity"):
        assert stranger.client.get(path).status_code == 404
    plain = LiveUser(paper_run.user.server, "paper-plain")
    strategy = plain.register("live_every_bar.java")
    without = plain.start(strategy).json()["runId"]
    missing = plain.client.get(f"/live/{without}/paper")
    assert missing.status_code == 404
    assert "without paper" in missing.json()["message"]
    assert plain.client.get(f"/live/{without}/paper/equity").status_code == 404
    plain.stop(strategy)


def test_the_official_sdk_reads_paper_accounts_and_curves(
    server: LiveServer, paper_run: PaperRun
) -> None:
    clients = Path(sys.executable).parent.parent / "next-clients"
    if not clients.exists():
        if os.environ.get("BACKTESTD_REQUIRE_SERVICES") == "1":
            raise RuntimeError(f"{clients} is missing: run 'make test' (it installs it)")
        pytest.skip(f"{clients} is missing: run 'make test' to install qtsurfer-sdk 0.8.0")
    env = harness_environment()
    env["PYTHONPATH"] = os.pathsep.join((str(clients), str(ROOT)))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.paper_journey",
            server.base_url,
            paper_run.user.key,
            paper_run.run_id,
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    trades = len(_of(paper_run.signals, "trade"))
    assert (seen["stage"], seen["currency"], seen["trades"]) == ("LIVE", "USDT", trades)
    assert seen["kpiTrades"] == trades
    assert seen["instruments"] == ["BTC/USDT"]
    assert [len(p) for p in seen["pages"]] == [5, 5, 5]
    stamps = [t for page in seen["pages"] for t in page]
    assert stamps == sorted(stamps)
    assert len(set(stamps)) == len(stamps)
    assert (seen["measure"], seen["totalMeasure"]) == ("equity", "totalPnl")
    assert seen["totalPoints"] >= trades


def test_start_rules_of_the_paper_block(server: LiveServer) -> None:
    user = LiveUser(server, "paper-rules")
    listener = user.register("live_callback.java")
    refused = user.start(listener)
    assert refused.status_code == 400
    assert "getExecutionCallback" in refused.json()["message"]
    assert '"paper": {}' in refused.json()["message"]
    accepted = user.start(listener, paper={})
    assert accepted.status_code == 201, accepted.text
    assert accepted.json()["paper"] == {
        "initialFunding": 100.0,
        "buyFeeRate": 0.001,
        "sellFeeRate": 0.001,
        "feeLeg": "RECEIVED",
        "output": "separate",
    }
    user.stop(listener)
    strategy = user.register("live_every_bar.java")
    for paper, word in (
        ({"feeRate": 1}, "paper.buyFeeRate"),
        ({"percentAmountToLock": 0}, "percentAmountToLock"),
        ({"feeLeg": "SIDEWAYS"}, "feeLeg"),
        ({"accounts": "instrument"}, "instruments named"),
    ):
        answer = user.start(strategy, sources=[{**SIM_KLINE, "instruments": None}], paper=paper)
        assert answer.status_code == 400, (paper, answer.text)
        assert word in answer.json()["message"], (paper, answer.text)
    isolated = user.start(
        strategy,
        paper={"accounts": "instrument", "percentAmountToLock": 50, "feeLeg": "quote"},
    )
    assert isolated.status_code == 201, isolated.text
    assert isolated.json()["paper"] == {
        "initialFunding": 100.0,
        "buyFeeRate": 0.001,
        "sellFeeRate": 0.001,
        "feeLeg": "QUOTE",
        "output": "separate",
        "percentAmountToLock": 50.0,
        "accounts": "instrument",
    }
    run_id = isolated.json()["runId"]
    opened = user.wait_run(run_id, lambda r: r["state"] == "RUNNING")
    assert opened["paper"]["accounts"] == "instrument"
    deadline = time.monotonic() + 60
    while not (accounts := user.client.get(f"/live/{run_id}/paper").json()["accounts"]):
        assert time.monotonic() < deadline, "no paper account was ever opened"
        time.sleep(0.5)
    assert [(a["instrument"], a["currency"]) for a in accounts] == [("BTC/USDT", "USDT")]
    assert "instruments" not in accounts[0]
    curve = user.client.get(f"/live/{run_id}/paper/equity").json()
    assert (curve["instrument"], curve["currency"]) == ("BTC/USDT", "USDT")
    total = user.client.get(f"/live/{run_id}/paper/equity", params={"measure": "totalPnl"})
    assert total.status_code == 400
    user.stop(strategy)


def test_a_takeover_carries_the_book_on_and_reports_lost_positions_as_gaps(
    server: LiveServer,
) -> None:
    """Issue point 5: closed trades, realised PnL and the curve carry on without double
    counting; the position open when the worker died becomes a gap."""
    user = LiveUser(server, "paper-drill")
    strategy = user.register("live_flip_hold.java")
    others = live_hosts(server)  # earlier tests' runs may still run, on either worker
    started = user.start(strategy, paper=PAPER, sandbox=True, sandboxMinutes=1440, warmFrom=0)
    assert started.status_code == 201, started.text
    run_id = started.json()["runId"]
    user.wait_signals(run_id, lambda s: len(_of(s, "trade")) >= 3, timeout=90)
    held = user.client.put(f"/live/{run_id}/params", json={"params": {"hold": True}})
    assert held.status_code == 200, held.text
    effective = held.json()["effectiveAtMs"]

    def holding(found: list[dict[str, Any]]) -> bool:
        """Holding: the strategy only buys now, and the last fill opened a position."""
        fills = _of(found, "fill")
        later = any(h["eventTsMs"] >= effective for h in _hints(found))
        return later and bool(fills) and fills[-1]["data"]["side"] == "buy"

    user.wait_signals(run_id, holding, timeout=60)
    before = user.client.get(f"/live/{run_id}/paper").json()["accounts"][0]
    assert len(before["openPositions"]) == 1
    os.kill(worker_of_new_live_hosts(server, others), signal.SIGKILL)
    resumed = user.wait_signals(
        run_id, lambda s: any(x.get("kind") == "restart" for x in s), timeout=60
    )
    marker_at = next(i for i, x in enumerate(resumed) if x.get("kind") == "restart")
    marker = resumed[marker_at]
    gap = resumed[marker_at + 1]
    assert (gap["type"], gap["kind"], gap["eventTsMs"]) == ("paper", "gap", marker["eventTsMs"])
    assert gap["instrument"]["symbol"] == "BTC/USDT"
    assert gap["data"]["currency"] == "USDT"
    assert gap["data"]["base"] == before["openPositions"][0]["base"]
    assert gap["data"]["cost"] == before["openPositions"][0]["cost"]
    after = user.wait_signals(
        run_id, lambda s: any(f["eventTsMs"] > marker["eventTsMs"] for f in _of(s, "fill"))
    )
    account = user.client.get(f"/live/{run_id}/paper").json()["accounts"][0]
    assert account["gaps"] == 1
    assert account["trades"] == before["trades"] == len(_of(after, "trade"))
    assert account["realisedPnl"] == before["realisedPnl"]
    trade_kpis = ("totalTrades", "winCount", "winRate", "pnlTotal", "sharpeRatio", "cagr")
    assert {k: account["kpi"][k] for k in trade_kpis} == {k: before["kpi"][k] for k in trade_kpis}
    assert account["kpi"]["maxDrawdown"] >= before["kpi"]["maxDrawdown"]  # marks go on
    assert len(account["openPositions"]) == 1  # a new position, opened after the takeover
    curve = user.client.get(f"/live/{run_id}/paper/equity").json()
    assert curve["gaps"] == [marker["eventTsMs"]]
    # the run goes on: the curve, read after `after`, holds at least its points and at most
    # those of a read after the curve (one point per equity or mark item, none twice)
    later = user.wait_signals(run_id, lambda s: True)
    points = len(curve["points"])
    assert len(_of(after, "equity")) + len(_of(after, "mark")) <= points
    assert points <= len(_of(later, "equity")) + len(_of(later, "mark"))
    stamps = [(x["kind"], x["eventTsMs"]) for x in later if x["type"] == "paper"]
    assert len(stamps) == len(set(stamps)), "a paper item was recorded twice"
    user.stop(strategy)
