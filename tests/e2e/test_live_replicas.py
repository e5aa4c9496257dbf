"""Black-box: the live channel across two API replicas on one PostgreSQL database (issue 28).

Replica A executes live runs (its Dask worker holds the leases); replica B executes none
(``BACKTESTD_LIVE_RUNS_PER_WORKER=0``) and shares only the database and the JWT secret with A.
A run started through A must reach a centrifuge-python subscriber connected to B, and the
``live.params`` RPC sent to B must change what the run executing under A emits — the signal
bus is the database, so no replica needs to know another (docs/live.md, "Where runs execute").
Both replicas read the same market clock: sped up, with the shared anchor the docs ask for.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import centrifuge
import httpx
import pytest

from tests.support.live import SIM_KLINE, LiveUser, live_hosts
from tests.support.server import LiveServer
from tests.support.services import temporary_postgres_database

pytestmark = [
    pytest.mark.requires_java,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    # centrifuge-python leaves its socket's transport to the garbage collector
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

RATE = 10
SHARED = {
    "BACKTESTD_JWT_SECRET": "replicas-share-this-secret-0123456789abcdef0123456789",
    "BACKTESTD_DASK_WORKERS": "1",
    "BACKTESTD_LIVE_CLOCK_RATE": str(RATE),
}


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, LiveServer]]:
    root = tmp_path_factory.mktemp("live-replicas")
    shared = {**SHARED, "BACKTESTD_LIVE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000))}
    with temporary_postgres_database() as url:
        executor = LiveServer(root / "a", database_url=url, extra_env=shared)
        watcher = LiveServer(
            root / "b",
            database_url=url,
            extra_env={**shared, "BACKTESTD_LIVE_RUNS_PER_WORKER": "0"},
        )
        executor.start()  # first: it creates the schema
        try:
            watcher.start()
            try:
                yield executor, watcher
            finally:
                watcher.stop()
        finally:
            executor.stop()


def test_a_run_started_on_one_replica_pushes_to_a_subscriber_of_another(
    replicas: tuple[LiveServer, LiveServer],
) -> None:
    a, b = replicas
    user = LiveUser(a, "replica-user")
    strategy = user.register("live_every_bar.java")
    source = {**SIM_KLINE, "instruments": ["BTC/USDT", "ETH/USDT"]}
    started = user.client.post(
        f"/strategy/{strategy}/live",
        json={"sources": [source], "relay": True, "warmFrom": 0, "sandboxMinutes": 5},
    )
    assert started.status_code == 201, started.text
    run_id = started.json()["runId"]
    user.wait_run(run_id, lambda r: r["state"] == "RUNNING")

    on_b = httpx.Client(base_url=b.base_url, headers=user.client.headers, timeout=60)
    assert on_b.get(f"/live/{run_id}").json()["state"] == "RUNNING"  # B reads A's run
    pushed, rpc, executor_now = asyncio.run(_watch_on(b, on_b, run_id))

    # B pushed the very objects the record holds, each once, in the record's order.
    recorded = {s["signalId"]: s for s in user.signals(run_id)}
    ids = [p["signalId"] for p in pushed]
    assert len(ids) == len(set(ids))
    assert ids == sorted(ids, key=lambda i: int(i.rsplit("-", 1)[1]))
    assert all(p == recorded[p["signalId"]] for p in pushed)
    # The RPC on B changed the run executing under A: version 1, effective 5 market seconds
    # after B's now, which is A's now: the clock both replicas share (B started later, so an
    # unshared sped-up clock would be (its start - A's start) x (rate - 1) behind).
    assert rpc["runId"] == run_id
    assert rpc["paramsVersion"] == 1
    assert abs(rpc["effectiveAtMs"] - 5_000 - executor_now) < 3_000 * RATE
    tagged = [p for p in pushed if p.get("data") == {"tag": "b"}]
    assert tagged, "no signal with the parameter set over B's RPC was pushed on B"
    assert all(p["paramsVersion"] == 1 and p["eventTsMs"] >= rpc["effectiveAtMs"] for p in tagged)
    # The pushes crossed processes through the database: nothing of B executes the run.
    assert not live_hosts(b)
    assert live_hosts(a)
    user.stop(strategy)


async def _watch_on(
    b: LiveServer, on_b: httpx.Client, run_id: str
) -> tuple[list[dict[str, Any]], dict[str, Any], int]:
    """Subscribe on B, take a few pushes, send ``live.params`` on B, wait for its effect."""
    token = on_b.post("/live/token").json()["token"]
    url = b.base_url.replace("http://", "ws://").removesuffix("/v1")
    client = centrifuge.Client(f"{url}/connection/websocket", token=token)
    pushed: list[dict[str, Any]] = []

    class Handler(centrifuge.SubscriptionEventHandler):
        async def on_publication(self, ctx: centrifuge.PublicationContext) -> None:
            pushed.append(ctx.pub.data)

    await client.connect()
    await client.new_subscription(f"sig:{run_id}", Handler()).subscribe()
    try:
        await _until(lambda: len(pushed) >= 3, 30, "no signal reached B's subscriber")
        executor_now = pushed[-1]["emittedAtMs"]  # A's market clock, a moment ago
        reply = await client.rpc("live.params", {"runId": run_id, "params": {"tag": "b"}})
        await _until(
            lambda: any(p.get("data") == {"tag": "b"} for p in pushed),
            30,
            "the parameter set over B never showed in B's pushes",
        )
    finally:
        await client.disconnect()
    return pushed, dict(reply.data), int(executor_now)


async def _until(done: Any, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, message
        await asyncio.sleep(0.2)
