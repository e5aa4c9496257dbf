"""Black-box: the owner's lists of backtest jobs and sweeps (additive routes) on a live server.

Two users work side by side; each list shows only its caller's work, newest first, in pages
chained by the answer's ``next`` cursor, and every bad query names its parameter.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.backtest_helpers import recent_range
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

WINDOW = recent_range(4)
TERMINAL = ("Completed", "Failed", "Aborted")


def _client(server: LiveServer, user: str) -> httpx.Client:
    token = server.token(server.create_key(user, tier="pro"))
    return httpx.Client(
        base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


def _poll(client: httpx.Client, path: str, done: Any, timeout: float = 240) -> Any:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        response = client.get(path)
        if response.status_code == 200 and done(response.json()):
            return response.json()
        pauses.sleep()
    raise AssertionError(f"{path} not done after {timeout}s")


@pytest.fixture(scope="module")
def work(live_server: LiveServer) -> Iterator[dict[str, Any]]:
    """Alice prepares twice, executes once and sweeps once; Bob prepares once."""
    alice, bob = _client(live_server, "list-alice"), _client(live_server, "list-bob")
    strategy = alice.post(
        "/strategy", content=source("ema_cross.java"), headers={"Content-Type": "text/plain"}
    ).json()["strategyId"]
    start, end = WINDOW
    first = alice.post(
        "/backtest/sim/ticker/prepare", json={"instrument": "BTC/USDT", "from": start, "to": end}
    ).json()["jobId"]
    second = alice.post(
        "/backtest/sim/ticker/prepare", json={"instrument": "ETH/USDT", "from": start, "to": end}
    ).json()["jobId"]
    bobs = bob.post(
        "/backtest/sim/ticker/prepare", json={"instrument": "BTC/USDT", "from": start, "to": end}
    ).json()["jobId"]
    for job in (first, second):
        _poll(alice, f"/backtest/sim/ticker/prepare/{job}", lambda b: b["status"] in TERMINAL)
    body = {"prepareJobId": first, "strategyId": strategy, "params": {"fast": 5}}
    execute = alice.post("/backtest/sim/ticker/execute", json=body).json()["jobId"]
    axes = {"fast": {"values": [5, 7]}}
    sweep = alice.post(
        f"/backtest/sim/ticker/executeSweep/{first}",
        json={"strategyId": strategy, "sweep": {"params": axes}},
    ).json()["sweepId"]
    yield {
        "alice": alice,
        "bob": bob,
        "strategy": strategy,
        "prepares": [first, second],
        "execute": execute,
        "sweep": sweep,
        "bobs": bobs,
    }
    alice.close()
    bob.close()


def test_the_job_list_shows_the_callers_jobs_newest_first_with_names_and_settings(
    work: dict[str, Any],
) -> None:
    answer = work["alice"].get("/backtest/jobs")
    assert answer.status_code == 200, answer.text
    jobs = answer.json()["jobs"]
    assert [j["jobId"] for j in jobs] == [work["execute"], *reversed(work["prepares"])]
    execute = jobs[0]
    assert execute["kind"] == "execute"
    assert execute["strategyId"] == work["strategy"]
    assert execute["strategyName"] == "EmaCross"
    assert execute["params"] == {"fast": 5}
    assert execute["baseConfig"]["initialFunding"] == 100.0
    assert execute["baseConfig"]["buyFeeRate"] == 0.001
    assert execute["window"]["instrument"] == "BTC/USDT"
    assert execute["window"]["from"] == WINDOW[0]
    prepare = jobs[2]
    assert prepare["kind"] == "prepare"
    assert prepare["status"] == "Completed"
    assert 0 < prepare["coverageRatio"] <= 1
    assert prepare["window"] == {
        "instrument": "BTC/USDT",
        "from": WINDOW[0],
        "to": WINDOW[1],
        "cadence": prepare["window"]["cadence"],
    }
    only = work["alice"].get("/backtest/jobs", params={"kind": "execute"}).json()["jobs"]
    assert [j["jobId"] for j in only] == [work["execute"]]
    one = work["alice"].get(f"/backtest/jobs/{work['execute']}")
    assert one.status_code == 200
    moving = ("status", "statusDetail", "size", "completed", "endTime")  # it may be running
    assert {k: v for k, v in one.json().items() if k not in moving} == {
        k: v for k, v in execute.items() if k not in moving
    }


def test_another_user_sees_none_of_it_and_gets_404_for_its_ids(work: dict[str, Any]) -> None:
    bob = work["bob"]
    assert [j["jobId"] for j in bob.get("/backtest/jobs").json()["jobs"]] == [work["bobs"]]
    assert bob.get("/backtest/sweeps").json() == {"sweeps": []}
    for job in (work["execute"], *work["prepares"]):
        refused = bob.get(f"/backtest/jobs/{job}")
        assert refused.status_code == 404
        assert refused.json()["code"] == 404
        assert job in refused.json()["message"]


def test_pages_chain_by_cursor_and_cover_every_job_once(work: dict[str, Any]) -> None:
    alice = work["alice"]
    seen, cursor, pages = [], None, 0
    while True:
        params: dict[str, Any] = {"limit": 1}
        if cursor:
            params["cursor"] = cursor
        page = alice.get("/backtest/jobs", params=params).json()
        pages += 1
        assert len(page["jobs"]) == 1
        seen.append(page["jobs"][0]["jobId"])
        cursor = page.get("next")
        if not cursor:
            break
    assert pages == 3
    assert seen == [work["execute"], *reversed(work["prepares"])]


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"limit": 0}, "'limit'"),
        ({"limit": 201}, "'limit'"),
        ({"cursor": "not-a-cursor"}, "'cursor'"),
        ({"kind": "sweep"}, "'kind'"),
    ],
)
def test_a_bad_query_is_a_400_naming_the_parameter(
    work: dict[str, Any], query: dict[str, Any], named: str
) -> None:
    refused = work["alice"].get("/backtest/jobs", params=query)
    assert refused.status_code == 400
    assert named in refused.json()["message"]


def test_the_sweep_list_shows_the_callers_sweep_with_its_address_and_status(
    work: dict[str, Any],
) -> None:
    alice = work["alice"]
    sweep = work["sweep"]
    path = f"/backtest/sim/ticker/executeSweep/{work['prepares'][0]}/{sweep}"
    _poll(alice, path, lambda b: b["status"] != "RUNNING")
    sweeps = alice.get("/backtest/sweeps").json()["sweeps"]
    assert len(sweeps) == 1
    entry = sweeps[0]
    assert entry["sweepId"] == sweep
    assert entry["requestId"] == work["prepares"][0]
    assert (entry["exchangeId"], entry["type"]) == ("sim", "ticker")
    assert entry["status"] == "COMPLETED"
    assert entry["strategyName"] == "EmaCross"
    assert entry["totalRuns"] == 2
    assert entry["params"] == ["fast"]
    assert entry["window"]["instrument"] == "BTC/USDT"
    assert alice.get("/backtest/sweeps", params={"limit": 500}).status_code == 400
