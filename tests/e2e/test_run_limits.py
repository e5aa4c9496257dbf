"""The tier's run limits (issue 26, point 1): ``maxRunSeconds`` bounds one run or sweep vector by
the wall clock, and ``maxSweepWorkerSeconds`` the worker time a whole sweep may use.

The server lowers the free tier's values so that the limits bite in seconds; the pro tier keeps
its defaults, and the same requests of a pro user run normally right after.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.server import LiveServer
from tests.support.strategies import source

FREE_RUN_SECONDS = 2
FREE_SWEEP_WORKER_SECONDS = 1
SPIN_WORK = 250  # millions of steps per vector: about 0.3-0.6 s each


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(
        tmp_path_factory.mktemp("run-limits"),
        extra_env={
            "BACKTESTD_TIERS__FREE__MAX_RUN_SECONDS": str(FREE_RUN_SECONDS),
            "BACKTESTD_TIERS__FREE__MAX_SWEEP_WORKER_SECONDS": str(FREE_SWEEP_WORKER_SECONDS),
        },
    )
    live.start()
    yield live
    live.stop()


def _prepared(session: AuthenticatedSession) -> str:
    start, end = recent_range(1)
    job = session.prepare(
        exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
    )
    assert wait_prepare(session, "sim", "ticker", job.job_id).status.value == "Completed"
    return str(job.job_id)


def _execute(session: AuthenticatedSession, text: str) -> dict[str, Any]:
    prepared = _prepared(session)
    strategy = session.compile_strategy(text).strategy_id
    job = session.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=prepared, strategy_id=strategy
    )
    return wait_result(session, "sim", "ticker", str(job.job_id))


def test_a_run_is_stopped_at_the_tiers_wall_clock_limit(server: LiveServer) -> None:
    free = auth(server.create_key("limits-free", tier="free"), base_url=server.base_url)
    account = call(server, free, "GET", "/account").json()
    assert account["maxRunSeconds"] == FREE_RUN_SECONDS

    started = time.monotonic()
    body = _execute(free, source("loops_forever.java"))
    elapsed = time.monotonic() - started

    assert body["state"]["status"] == "Failed", body
    detail = body["state"]["statusDetail"]
    assert f"limit of {FREE_RUN_SECONDS}" in detail, detail
    assert elapsed < 60  # the server's own limits (60 s CPU, 125 s wall) did not apply

    pro = auth(server.create_key("limits-pro", tier="pro"), base_url=server.base_url)
    ordinary = _execute(pro, source("ema_cross.java"))
    assert ordinary["state"]["status"] == "Completed", ordinary


def test_a_sweep_stops_at_the_tiers_worker_time_and_keeps_its_rows(server: LiveServer) -> None:
    free = auth(server.create_key("sweeper-free", tier="free"), base_url=server.base_url)
    assert call(server, free, "GET", "/account").json()["maxSweepWorkerSeconds"] == 1
    prepared = _prepared(free)
    strategy = free.compile_strategy(source("spins_per_run.java")).strategy_id
    path = f"/backtest/sim/ticker/executeSweep/{prepared}"
    works = [SPIN_WORK + n for n in range(24)]
    accepted = call(
        server,
        free,
        "POST",
        path,
        json={"strategyId": strategy, "sweep": {"params": {"work": {"values": works}}}},
    )
    assert accepted.status_code == 202, accepted.text
    sweep_id = accepted.json()["sweepId"]

    deadline = time.monotonic() + 180
    while (body := call(server, free, "GET", f"{path}/{sweep_id}").json())["status"] == "RUNNING":
        assert time.monotonic() < deadline, body["progress"]
        time.sleep(0.3)

    assert body["status"] == "PARTIAL", body["status"]
    assert "maxSweepWorkerSeconds of 1" in body["failReason"], body["failReason"]
    ran = body["progress"]["done"]
    assert 0 < ran < len(works)  # stopped early, and what ran is kept
    assert len(body["leaderboard"]) == ran
    used = sum(row["runtimeMs"] for row in body["leaderboard"]) / 1000
    assert used >= FREE_SWEEP_WORKER_SECONDS
