"""Black-box: live runs on a running server (spec/live-execution.md; docs/live.md).

One server, its market clock 120 times faster than the wall (a 5-minute sandbox trial lasts a
few seconds), leases of 3 s, two worker processes.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import centrifuge
import httpx
import pytest

from tests.support.live import SIM_KLINE, LiveUser, live_hosts, worker_of_new_live_hosts
from tests.support.server import LiveServer, harness_environment

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    # centrifuge-python leaves its socket's transport to the garbage collector
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(
        tmp_path_factory.mktemp("live-server"),
        extra_env={
            "BACKTESTD_LIVE_CLOCK_RATE": "120",
            # Anchored here, not at each start: market time keeps running across the restart
            # of the last test (docs/configuration.md, BACKTESTD_LIVE_CLOCK_ANCHOR_MS).
            "BACKTESTD_LIVE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "BACKTESTD_LIVE_LEASE_SECONDS": "3",
            "BACKTESTD_DASK_WORKERS": "2",
        },
    )
    live.start()
    yield live
    live.stop()


def test_start_refusals_name_the_problem(server: LiveServer) -> None:
    user = LiveUser(server, "live-refusals", tier="basic")
    strategy = user.register("live_every_bar.java")

    def start(**body: Any) -> httpx.Response:
        return user.client.post(f"/strategy/{strategy}/live", json=body)

    two = start(sources=[SIM_KLINE, SIM_KLINE])
    assert two.status_code == 400
    assert "exactly one" in two.json()["message"]
    ticker = start(sources=[{**SIM_KLINE, "type": "ticker"}])
    assert ticker.status_code == 400
    assert "consumes kline" in ticker.json()["message"]
    dex = start(sources=[{**SIM_KLINE, "venueType": "dex"}])
    assert dex.status_code == 400
    assert "cex sim/spot" in dex.json()["message"]
    futures = start(sources=[{**SIM_KLINE, "segment": "futures"}])
    assert futures.status_code == 400
    assert "liveSegments" in futures.json()["message"]
    empty = start(sources=[{**SIM_KLINE, "instruments": []}])
    assert empty.status_code == 400
    assert "instruments is empty" in empty.json()["message"]
    warm = start(sources=[SIM_KLINE], warmFrom=4000)
    assert warm.status_code == 400
    assert "warmFrom" in warm.json()["message"]
    paper = start(sources=[SIM_KLINE], paper={"initialFunding": 100, "colour": "red"})
    assert paper.status_code == 400
    assert "colour" in paper.json()["message"]
    undeclared = start(sources=[SIM_KLINE], params={"nope": 1})
    assert undeclared.status_code == 400
    assert "nope" in undeclared.json()["message"]
    missing = user.client.post(
        "/strategy/zzzzzzzzzzzzzzzzzzzzzz/live", json={"sources": [SIM_KLINE]}
    )
    assert missing.status_code == 404
    # Plans: a wildcard is a feature (402); a stream URL and a short trial are limits (429).
    wildcard = start(sources=[{**SIM_KLINE, "instruments": ["*/USDT"]}])
    assert wildcard.status_code == 402
    assert wildcard.json()["reason"] == "PLAN_WILDCARD"
    stream = start(sources=[SIM_KLINE], stream=True)
    assert stream.status_code == 429
    assert stream.json()["retryable"] is False
    assert "Retry-After" not in stream.headers
    short = start(sources=[SIM_KLINE], sandboxMinutes=100)
    assert short.status_code == 429
    assert "240" in short.json()["message"]
    for answer in (two, ticker, dex, wildcard, stream, short):
        assert answer.json()["code"] == answer.status_code


def test_lifecycle_and_limits_of_a_free_user(server: LiveServer) -> None:
    user = LiveUser(server, "live-free", tier="free")
    first = user.register("live_every_bar.java")
    second = user.register("live_dice.java")
    started = user.start(first, name="first")
    assert started.status_code == 201, started.text
    run = started.json()
    assert (run["stage"], run["state"], run["desired"]) == ("SANDBOX", "STARTING", "RUNNING")
    assert run["sandboxMinutes"] == 1440
    assert 0 <= run["warmFrom"] <= 900
    assert run["paramsVersion"] == 0
    assert run["relay"] is False
    assert "gate" not in run
    assert run["sources"] == [SIM_KLINE]
    again = user.start(first)
    assert again.status_code == 409
    assert run["runId"] in again.json()["message"]
    over = user.start(second)
    assert over.status_code == 429
    assert over.json()["reason"] == "LIVE_RUNS"
    assert user.client.get(f"/strategy/{first}/live").json()["runId"] == run["runId"]
    listed = user.client.get("/live").json()
    assert [r["runId"] for r in listed["runs"]] == [run["runId"]]
    # PATCH without a body (what the generated client sends) is {}; a run in the sandbox is
    # not public yet, whatever its visibility.
    patched = user.client.patch(
        f"/live/{run['runId']}", headers={"Content-Type": "application/json"}
    )
    assert patched.status_code == 200
    assert patched.json()["visibility"] == "private"
    public = user.client.patch(f"/live/{run['runId']}", json={"visibility": "public"})
    assert public.json()["visibility"] == "public"
    catalogue = httpx.get(f"{server.base_url}/live/public").json()
    assert run["runId"] not in [r["runId"] for r in catalogue["runs"]]
    other = LiveUser(server, "live-other", tier="free")
    assert other.client.get(f"/live/{run['runId']}").status_code == 404
    assert other.client.get(f"/live/{run['runId']}/signals").status_code == 404
    stopped = user.stop(first)
    assert stopped["desired"] == "STOPPED"
    assert "sandboxMinutes" not in stopped
    assert user.stop(first)["desired"] == "STOPPED"  # idempotent
    user.wait_run(run["runId"], lambda r: r["state"] == "STOPPED", timeout=30)
    assert user.start(second).status_code == 201  # the stopped run no longer counts
    params = user.client.put(f"/live/{run['runId']}/params", json={"params": {"tag": "b"}})
    assert params.status_code == 409
    assert "not running" in params.json()["message"]


def test_sandbox_promotes_signals_params_commands_and_the_channel(server: LiveServer) -> None:
    user = LiveUser(server, "live-elite")
    strategy = user.register("live_every_bar.java")
    started = user.start(strategy, relay=True, sandboxMinutes=5, warmFrom=30, name="every bar")
    assert started.status_code == 201, started.text
    run_id = started.json()["runId"]
    user.wait_run(run_id, lambda r: r["state"] == "RUNNING")

    pushed, rpc = asyncio.run(_watch_channel(server, user, run_id))
    recorded = {s["signalId"]: s for s in user.signals(run_id)}
    assert pushed, "no signal was pushed on the channel"
    for item in pushed:  # the very object the record serves
        if item["signalId"] in recorded:
            assert item == recorded[item["signalId"]]
    assert rpc["runId"] == run_id
    assert rpc["paramsVersion"] == 1

    # Parameters: undeclared 400; accepted ones bump the version and reach the strategy at
    # effectiveAtMs, in both executions (no disagreement, so the run stays healthy).
    bad = user.client.put(f"/live/{run_id}/params", json={"params": {"size": 2}})
    assert bad.status_code == 400
    assert "tag" in bad.json()["message"]
    changed = user.client.put(f"/live/{run_id}/params", json={"params": {"tag": "c"}})
    assert changed.status_code == 200
    assert changed.json()["paramsVersion"] == 2
    effective = changed.json()["effectiveAtMs"]
    after = user.wait_signals(run_id, lambda s: any(x.get("data") == {"tag": "c"} for x in s))
    tagged = [x for x in after if x.get("data") == {"tag": "c"}]
    assert all(x["eventTsMs"] >= effective and x["paramsVersion"] == 2 for x in tagged)
    assert all(x.get("data") != {"tag": "c"} for x in after if x["eventTsMs"] < effective)

    # Commands: accepted for delivery (202), recorded as a command signal, handled once.
    sent = user.client.post(
        f"/live/{run_id}/commands", json={"command": "rebalance", "properties": {"qty": 3}}
    )
    assert sent.status_code == 202, sent.text
    commands = user.wait_signals(run_id, lambda s: any(x["type"] == "command" for x in s))
    note = next(x for x in commands if x["type"] == "command")
    assert note["kind"] == "rebalance"
    assert note["data"] == {"qty": "3"}
    assert "symbol" not in note["instrument"]
    handled = [x for x in commands if (x.get("data") or {}).get("command") == "rebalance"]
    assert len(handled) == 1
    assert handled[0]["data"]["count"] == 1
    big = user.client.post(f"/live/{run_id}/commands", json={"command": "x" * 3000})
    assert big.status_code == 413
    assert "2048" in big.json()["message"]

    # The trial ends: both executions agreed, so the run is promoted with its gate.
    promoted = user.wait_run(run_id, lambda r: r["stage"] == "LIVE", timeout=120)
    assert promoted["gate"]["passed"] is True
    assert promoted["state"] == "RUNNING"
    assert promoted["gate"]["checks"] == {
        "agreement": True,
        "resources": True,
        "stability": True,
        "fed": True,
    }
    live = user.wait_signals(run_id, lambda s: any(x["stage"] == "live" for x in s))
    ids = [x["signalId"] for x in live]
    assert len(ids) == len(set(ids))
    seqs = [int(i.rsplit("-", 1)[1]) for i in ids]
    assert seqs == sorted(seqs)

    # Public and LIVE: listed without its owner; another user reads only live-stage signals.
    user.client.patch(f"/live/{run_id}", json={"visibility": "public"})
    catalogue = httpx.get(f"{server.base_url}/live/public").json()["runs"]
    entry = next(r for r in catalogue if r["runId"] == run_id)
    assert "strategyId" not in entry
    assert entry["name"] == "every bar"
    reader = LiveUser(server, "live-reader")
    seen = reader.signals(run_id)
    assert seen
    assert {x["stage"] for x in seen} == {"live"}

    # A later start of the same compilation starts LIVE, inheriting the gate.
    user.stop(strategy)
    user.wait_run(run_id, lambda r: r["state"] == "STOPPED", timeout=30)
    again = user.start(strategy)
    assert again.status_code == 201
    assert again.json()["stage"] == "LIVE"
    assert again.json()["gate"]["inheritedFrom"] == run_id
    assert "sandboxMinutes" not in again.json()
    user.stop(strategy)


async def _watch_channel(
    server: LiveServer, user: LiveUser, run_id: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    token = user.client.post("/live/token").json()["token"]
    url = server.base_url.replace("http://", "ws://").removesuffix("/v1")
    client = centrifuge.Client(f"{url}/connection/websocket", token=token)
    pushed: list[dict[str, Any]] = []

    class Handler(centrifuge.SubscriptionEventHandler):
        async def on_publication(self, ctx: centrifuge.PublicationContext) -> None:
            pushed.append(ctx.pub.data)

    subscription = client.new_subscription(f"sig:{run_id}", Handler())
    await client.connect()
    await subscription.subscribe()
    deadline = time.monotonic() + 30
    while len(pushed) < 3 and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    reply = await client.rpc("live.params", {"runId": run_id, "params": {"tag": "b"}})
    await client.disconnect()
    return pushed, dict(reply.data)


def test_a_strategy_using_randomness_is_caught_by_the_twin(server: LiveServer) -> None:
    user = LiveUser(server, "live-dice")
    strategy = user.register("live_dice.java")
    run_id = user.start(strategy, sandboxMinutes=5).json()["runId"]
    run = user.wait_run(run_id, lambda r: r["state"] == "DEGRADED", timeout=60)
    assert run["stage"] == "SANDBOX"
    assert run["gate"]["passed"] is False
    assert run["gate"]["checks"]["agreement"] is False
    time.sleep(6)  # past the trial's market length: still never promoted
    assert user.run(run_id)["stage"] == "SANDBOX"
    user.stop(strategy)


def test_attacker_spins_and_fails_alone_victim_keeps_running(server: LiveServer) -> None:
    victim = LiveUser(server, "live-victim")
    victim_run = victim.start(victim.register("live_every_bar.java")).json()["runId"]
    victim.wait_run(victim_run, lambda r: r["state"] == "RUNNING")
    attacker = LiveUser(server, "live-attacker")
    attack = attacker.start(attacker.register("live_spin.java"), warmFrom=0).json()["runId"]
    failed = attacker.wait_run(attack, lambda r: r["state"] == "FAILED", timeout=60)
    assert failed["reason"] == (
        "The run stopped because its strategy failed while processing data."
    )
    before = len(victim.signals(victim_run))
    later = victim.wait_signals(victim_run, lambda s: len(s) > before + 5, timeout=30)
    # Not failed: RUNNING, or LAGGING for a moment on a loaded machine (self-clearing).
    assert victim.run(victim_run)["state"] in ("RUNNING", "LAGGING")
    assert len(later) > before


def test_a_run_resumes_after_its_worker_is_killed(server: LiveServer) -> None:
    user = LiveUser(server, "live-drill")
    strategy = user.register("live_every_bar.java")
    others = live_hosts(server)  # earlier tests' runs may still run, on either worker
    run_id = user.start(strategy, sandbox=True, sandboxMinutes=1440).json()["runId"]
    user.wait_signals(run_id, lambda s: len(s) >= 4)
    os.kill(worker_of_new_live_hosts(server, others), signal.SIGKILL)
    killed_at = time.monotonic()
    resumed = user.wait_signals(
        run_id, lambda s: any(x.get("kind") == "restart" for x in s), timeout=45
    )
    assert time.monotonic() - killed_at < 30
    marker = next(x for x in resumed if x.get("kind") == "restart")
    assert marker["type"] == "marker"
    assert marker["data"]["execution"] == 2
    more = user.wait_signals(run_id, lambda s: len(s) > len(resumed) + 2, timeout=30)
    ids = [x["signalId"] for x in more]
    assert len(ids) == len(set(ids))
    stamps = [(x["eventTsMs"], x["digest"]) for x in more if x["type"] != "marker"]
    assert len(stamps) == len(set(stamps)), "a signal was recorded twice"
    # The bars of the outage were replayed and recorded, marked as filling the gap.
    regenerated = [x for x in more if x.get("regenerated")]
    assert regenerated
    assert all(x["eventTsMs"] >= marker["data"]["resumed_from_ms"] for x in regenerated)
    user.stop(strategy)


def test_every_live_operation_of_sdk_0_8_0_works_unmodified(server: LiveServer) -> None:
    clients = Path(sys.executable).parent.parent / "next-clients"
    if not clients.exists():
        if os.environ.get("BACKTESTD_REQUIRE_SERVICES") == "1":
            raise RuntimeError(f"{clients} is missing: run 'make test' (it installs it)")
        pytest.skip(f"{clients} is missing: run 'make test' to install qtsurfer-sdk 0.8.0")
    key = server.create_key("live-sdk", tier="elite")
    env = harness_environment()
    env["PYTHONPATH"] = os.pathsep.join((str(clients), str(ROOT)))
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.live_journey", server.base_url, key],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["started"] == {"stage": "SANDBOX", "state": "STARTING", "stream": True}
    assert seen["again"] == 409
    assert seen["running"] == "RUNNING"
    assert seen["detail"]["hasUpdated"] is True
    assert seen["detail"]["runId"] in seen["listed"]
    first, following = seen["signals"]["first"], seen["signals"]["next"]
    assert len(first) == 2
    assert following
    assert following[0] not in first
    assert seen["params"] == 1
    assert seen["command"] is True
    assert seen["patched"] == {"visibility": "public", "name": "renamed"}
    assert seen["token"] is True
    assert seen["rotated"] is True
    assert seen["revoked"] is True
    assert seen["promoted"] == {"stage": "LIVE", "passed": True}
    assert seen["public"] is True
    assert seen["stopped"] == "STOPPED"


def test_a_run_survives_a_restart_of_the_service(server: LiveServer) -> None:
    """Last in the module: it restarts the shared server."""
    user = LiveUser(server, "live-restart")
    strategy = user.register("live_every_bar.java")
    run_id = user.start(strategy, sandbox=True, sandboxMinutes=1440).json()["runId"]
    before = user.wait_signals(run_id, lambda s: len(s) >= 3)
    server.stop()
    server.start()
    user.token = server.token(user.key)
    user.client.headers["Authorization"] = f"Bearer {user.token}"
    resumed = user.wait_signals(
        run_id, lambda s: any(x.get("kind") == "restart" for x in s), timeout=60
    )
    after = user.wait_signals(run_id, lambda s: len(s) > len(resumed) + 2, timeout=60)
    assert {x["signalId"] for x in before} <= {x["signalId"] for x in after}
    assert user.run(run_id)["state"] in ("RUNNING", "LAGGING")
    ids = [x["signalId"] for x in after]
    assert len(ids) == len(set(ids))
    user.stop(strategy)
