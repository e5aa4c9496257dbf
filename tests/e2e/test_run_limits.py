"""Bounded runs and stored results (issue 26, points 1 and 4): ``maxRunSeconds`` bounds one
run or sweep vector by the wall clock, ``maxSweepWorkerSeconds`` the worker time a whole sweep
may use, and a retained trial's curve is stored with at most ``BACKTESTD_SWEEP_CURVE_MAX_POINTS``
points.

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
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

FREE_RUN_SECONDS = 2
FREE_SWEEP_WORKER_SECONDS = 1
CURVE_MAX_POINTS = 6
SPIN_WORK = 250  # millions of steps per vector: about 0.3-0.6 s each


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(
        tmp_path_factory.mktemp("run-limits"),
        extra_env={
            "BACKTESTD_TIERS__FREE__MAX_RUN_SECONDS": str(FREE_RUN_SECONDS),
            "BACKTESTD_TIERS__FREE__MAX_SWEEP_WORKER_SECONDS": str(FREE_SWEEP_WORKER_SECONDS),
            "BACKTESTD_SWEEP_CURVE_MAX_POINTS": str(CURVE_MAX_POINTS),
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
    pauses = Pauses()
    while (body := call(server, free, "GET", f"{path}/{sweep_id}").json())["status"] == "RUNNING":
        assert time.monotonic() < deadline, body["progress"]
        pauses.sleep()

    assert body["status"] == "PARTIAL", body["status"]
    assert "maxSweepWorkerSeconds of 1" in body["failReason"], body["failReason"]
    ran = body["progress"]["done"]
    assert 0 < ran < len(works)  # stopped early, and what ran is kept
    assert len(body["leaderboard"]) == ran
    used = sum(row["runtimeMs"] for row in body["leaderboard"]) / 1000
    assert used >= FREE_SWEEP_WORKER_SECONDS


def test_a_trials_curve_is_stored_thinned_out_keeping_its_extremes(server: LiveServer) -> None:
    """A trial's curve has one point per trade; it is stored with at most the bound's points
    (first, last and the extremes kept), and its meta says so. Checked against the full curve
    of the same vector run as an execute."""
    pro = auth(server.create_key("curves-pro", tier="pro"), base_url=server.base_url)
    prepared = _prepared(pro)
    strategy = str(pro.compile_strategy(source("ema_cross.java")).strategy_id)
    path = f"/backtest/sim/ticker/executeSweep/{prepared}"
    accepted = call(
        server,
        pro,
        "POST",
        path,
        json={"strategyId": strategy, "sweep": {"params": {"fast": {"values": [3, 5]}}}},
    )
    assert accepted.status_code == 202, accepted.text
    sweep_id = accepted.json()["sweepId"]
    deadline = time.monotonic() + 180
    pauses = Pauses()
    while (body := call(server, pro, "GET", f"{path}/{sweep_id}").json())["status"] == "RUNNING":
        assert time.monotonic() < deadline
        pauses.sleep()
    rows = [r for r in body["leaderboard"] if r.get("equityCurve")]
    row = max(rows, key=lambda r: r["trades"])
    assert row["trades"] + 1 > CURVE_MAX_POINTS, "the test needs a trial with more trades"
    pointer_meta = row["equityCurve"]["meta"]
    served = call(server, pro, "GET", f"{path}/{sweep_id}/runs/{row['runIx']}/equityCurve")
    assert served.status_code == 200, served.text
    curve = served.json()

    execute = call(
        server,
        pro,
        "POST",
        "/backtest/sim/ticker/execute",
        json={"prepareJobId": prepared, "strategyId": strategy, "params": row["params"]},
    )
    assert execute.status_code == 202, execute.text
    full = wait_result(pro, "sim", "ticker", execute.json()["jobId"])["results"]["equityCurve"]
    full_equities = [p["equity"] for p in full["points"]]
    stored = curve["points"]

    assert len(full_equities) == row["trades"] + 1
    for meta in (curve["meta"], pointer_meta):
        assert meta["inputPointCount"] == len(full_equities)
        assert meta["resampled"] is True
    assert len(stored) <= CURVE_MAX_POINTS
    assert (stored[0], stored[-1]) == (full["points"][0], full["points"][-1])
    equities = [p["equity"] for p in stored]
    assert (max(equities), min(equities)) == (max(full_equities), min(full_equities))
    full_points = {(p["timestamp"], p["equity"]) for p in full["points"]}
    assert {(p["timestamp"], p["equity"]) for p in stored} <= full_points
