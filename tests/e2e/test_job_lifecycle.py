"""Black-box: concurrency limits, cancellation and recovery after a restart.

These run on a dedicated server with a short per-run CPU limit, so a runaway strategy keeps a
job busy for a few seconds only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from qtsurfer_sdk import auth

from tests.e2e.backtest_helpers import (
    call,
    recent_range,
    wait_prepare,
    wait_prepare_half_done,
    wait_result,
)
from tests.support.server import LiveServer
from tests.support.strategies import source


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(
        tmp_path_factory.mktemp("lifecycle"),
        extra_env={
            "BACKTESTD_RUN_CPU_LIMIT_SECONDS": "4",
            "BACKTESTD_DASK_WORKERS": "2",
            "BACKTESTD_MAX_COMPILES_IN_FLIGHT": "1",
            "BACKTESTD_MAX_ACTIVE_PREPARES_PER_USER": "1",
        },
    )
    live.start()
    yield live
    live.stop()


def test_max_execute_gives_429_and_cancel_aborts(server: LiveServer) -> None:
    session = auth(server.create_key("limited", tier="free"), base_url=server.base_url)
    start, end = recent_range(1)
    prepared = session.prepare(
        exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
    )
    assert wait_prepare(session, "sim", "ticker", prepared.job_id).status.value == "Completed"
    runaway = session.compile_strategy(source("loops_forever.java")).strategy_id
    first = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/execute",
        json={"prepareJobId": prepared.job_id, "strategyId": runaway},
    )
    assert first.status_code == 202
    job_id = first.json()["jobId"]
    again = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/execute",
        json={"prepareJobId": prepared.job_id, "strategyId": runaway},
    )
    assert again.status_code == 202  # identical input: same job, nothing new queued
    assert again.json()["jobId"] == job_id
    second = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/execute",
        json={
            "prepareJobId": prepared.job_id,
            "strategyId": runaway,
            "baseConfig": {"initialFunding": 200.0},  # another job: it declares no params
        },
    )
    assert second.status_code == 429
    assert second.json()["code"] == 429
    assert "at most 1 concurrent" in second.json()["message"]
    cancelled = session.cancel_backtest(exchange_id="sim", type_="ticker", job_id=job_id)
    assert cancelled.status.value == "cancelling"
    assert cancelled.job_id == job_id
    body = wait_result(session, "sim", "ticker", job_id, timeout=120)
    assert body["state"]["status"] == "Aborted"
    assert body["results"]["strategyId"].endswith(runaway)
    third = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/execute",
        json={
            "prepareJobId": prepared.job_id,
            "strategyId": runaway,
            "baseConfig": {"initialFunding": 200.0},  # another job: it declares no params
        },
    )
    assert third.status_code == 202  # the slot is free again


def test_runaway_execution_fails_its_own_job_only(server: LiveServer) -> None:
    session = auth(server.create_key("runaway", tier="elite"), base_url=server.base_url)
    start, end = recent_range(1)
    prepared = session.prepare(
        exchange_id="sim", type_="ticker", instrument="ETH/USDT", from_=start, to=end
    )
    wait_prepare(session, "sim", "ticker", prepared.job_id)
    runaway = session.compile_strategy(source("loops_forever.java")).strategy_id
    healthy = session.compile_strategy(source("ema_cross.java")).strategy_id
    bad = session.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=prepared.job_id, strategy_id=runaway
    )
    good = session.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=prepared.job_id, strategy_id=healthy
    )
    bad_body = wait_result(session, "sim", "ticker", bad.job_id, timeout=120)
    good_body = wait_result(session, "sim", "ticker", good.job_id, timeout=120)
    assert bad_body["state"]["status"] == "Failed"
    assert "limit" in bad_body["state"]["statusDetail"].lower()
    assert good_body["state"]["status"] == "Completed"


def test_unfinished_prepare_is_resumed_after_a_restart(tmp_path: Path) -> None:
    """A prepare long enough to be caught half done: with 8 days of hours and a poll every 0.2 s
    the prepare once completed between two polls (a fresh-clone run of .ci/run)."""
    hours = 24 * 30
    server = LiveServer(tmp_path / "restart", extra_env={"BACKTESTD_DASK_WORKERS": "1"})
    server.start()
    try:
        session = auth(server.create_key("restarter"), base_url=server.base_url)
        start, end = recent_range(hours, end_hours_ago=48)
        job = session.prepare(
            exchange_id="sim", type_="ticker", instrument="XRP/USDT", from_=start, to=end
        )
        state = wait_prepare_half_done(session, "sim", "ticker", job.job_id)
        assert state.status.value == "Started", state.to_dict()
        server.stop()
        server.start()
        session = auth(server.create_key("restarter"), base_url=server.base_url)
        final = wait_prepare(session, "sim", "ticker", job.job_id, timeout=300)
        assert final.status.value == "Completed"
        assert final.total_hours == hours
        assert final.completed == final.size == hours
        assert "resubmitted 1 unfinished jobs" in server.log_path.read_text()
    finally:
        server.stop()


def test_too_many_compilations_in_flight_get_429(server: LiveServer) -> None:
    token = server.token(server.create_key("compiler"))
    sources = [
        source("ema_cross.java").replace('defaultValue = "21"', f'defaultValue = "{n}"')
        for n in range(30, 38)
    ]

    def post(text: str) -> httpx.Response:
        return httpx.post(
            f"{server.base_url}/strategy",
            content=text.encode(),
            timeout=120,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "text/plain"},
        )

    with ThreadPoolExecutor(len(sources)) as pool:
        responses = list(pool.map(post, sources))
    statuses = [r.status_code for r in responses]
    assert 200 in statuses
    assert 429 in statuses
    refused = next(r for r in responses if r.status_code == 429)
    assert "too many compilations in flight (limit 1)" in refused.json()["message"]


def test_second_active_prepare_of_a_user_gets_429(server: LiveServer) -> None:
    session = auth(server.create_key("preparer"), base_url=server.base_url)
    start, end = recent_range(24 * 20, end_hours_ago=24 * 40)
    first = session.prepare(
        exchange_id="sim", type_="ticker", instrument="DOGE/USDT", from_=start, to=end
    )
    second = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/prepare",
        json={"instrument": "LINK/USDT", "from": start, "to": end},
    )
    assert second.status_code == 429
    assert "at most 1 prepares" in second.json()["message"]
    assert wait_prepare(session, "sim", "ticker", first.job_id).status.value == "Completed"
    third = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/prepare",
        json={"instrument": "LINK/USDT", "from": start, "to": end},
    )
    assert third.status_code == 202


def test_cancel_interrupts_a_busy_run_long_before_its_cpu_limit(tmp_path: Path) -> None:
    """With the default 60 s CPU limit, a cancelled busy run ends Aborted within seconds and
    stores no result; the next user's run on the same worker is unharmed."""
    server = LiveServer(tmp_path / "cancel", extra_env={"BACKTESTD_DASK_WORKERS": "1"})
    server.start()
    try:
        session = auth(server.create_key("canceller", tier="pro"), base_url=server.base_url)
        start, end = recent_range(1)
        prepared = session.prepare(
            exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
        )
        assert wait_prepare(session, "sim", "ticker", prepared.job_id).status.value == "Completed"
        runaway = session.compile_strategy(source("loops_forever.java")).strategy_id
        job = session.execute(
            exchange_id="sim", type_="ticker", prepare_job_id=prepared.job_id, strategy_id=runaway
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # wait until the run is in the engine
            state = call(server, session, "GET", f"/backtest/sim/ticker/execute/{job.job_id}")
            if state.status_code == 202:
                break
            time.sleep(0.1)
        time.sleep(1.0)
        asked = time.monotonic()
        session.cancel_backtest(exchange_id="sim", type_="ticker", job_id=job.job_id)
        body = wait_result(session, "sim", "ticker", job.job_id, timeout=60)
        took = time.monotonic() - asked
        assert body["state"]["status"] == "Aborted"
        assert took < 15, f"cancel took {took:.1f} s (the CPU limit is 60 s)"
        assert "totalTrades" not in body["results"]
        assert "pnlTotal" not in body["results"]
        victim = auth(server.create_key("after-cancel"), base_url=server.base_url)
        healthy = victim.compile_strategy(source("ema_cross.java")).strategy_id
        own = victim.prepare(
            exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
        )
        assert wait_prepare(victim, "sim", "ticker", own.job_id).status.value == "Completed"
        run = victim.execute(
            exchange_id="sim", type_="ticker", prepare_job_id=own.job_id, strategy_id=healthy
        )
        assert wait_result(victim, "sim", "ticker", run.job_id)["state"]["status"] == "Completed"
    finally:
        server.stop()
