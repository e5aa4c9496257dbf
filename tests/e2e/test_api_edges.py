"""Black-box, raw HTTP: the rough edges of "a quant's first hour" (issue 27, points 3, 4, 6).

A finished job reports its full progress and cancelling it says it has finished; an undeclared
param is refused at submission; ``"20"`` and ``20`` are the same run; a job id asked on the
wrong path tells its owner where it is; a well-formed future hour is 404; a close-only dataset
prepares as ``kline``. (The two SDK generations meet the cancel answers in
``test_client_generations.py``.)
"""

from __future__ import annotations

import io
import math
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

THREE_HOURS = recent_range(3)
EXECUTE = "/backtest/sim/ticker/execute"


@pytest.fixture(scope="module")
def quant(live_server: LiveServer) -> AuthenticatedSession:
    return auth(live_server.create_key("edges-quant", tier="elite"), base_url=live_server.base_url)


@pytest.fixture(scope="module")
def other(live_server: LiveServer) -> AuthenticatedSession:
    return auth(live_server.create_key("edges-other", tier="elite"), base_url=live_server.base_url)


@pytest.fixture(scope="module")
def prepared(quant: AuthenticatedSession) -> str:
    start, end = THREE_HOURS
    job = quant.prepare(
        exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
    )
    assert wait_prepare(quant, "sim", "ticker", job.job_id).status.value == "Completed"
    return str(job.job_id)


@pytest.fixture(scope="module")
def strategy(quant: AuthenticatedSession) -> str:
    return str(quant.compile_strategy(source("ema_cross.java")).strategy_id)


def _execute(server: LiveServer, session: AuthenticatedSession, body: dict[str, Any]) -> str:
    response = call(server, session, "POST", EXECUTE, json=body)
    assert response.status_code == 202, response.text
    return str(response.json()["jobId"])


def _wait_sweep(
    server: LiveServer, session: AuthenticatedSession, path: str, timeout: float = 300
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        body: dict[str, Any] = call(server, session, "GET", path).json()
        if body["status"] != "RUNNING" and body["progress"]["pendingShards"] == 0:
            return body
        pauses.sleep()
    raise AssertionError(f"sweep {path} not finished after {timeout}s")


# -- point 3: finished jobs ---------------------------------------------------------------


def test_a_completed_execute_reports_full_progress_and_cancelling_it_says_it_finished(
    live_server: LiveServer, quant: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    job_id = _execute(
        live_server,
        quant,
        {"prepareJobId": prepared, "strategyId": strategy, "params": {"fast": 7}},
    )
    state = wait_result(quant, "sim", "ticker", job_id)["state"]
    assert state["status"] == "Completed"
    assert state["size"] > 0
    assert state["completed"] == state["size"]

    answer = call(live_server, quant, "DELETE", f"{EXECUTE}/{job_id}")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert "status" not in body  # optional in the description: absent = nothing cancelling
    assert body["jobId"] == job_id
    assert body["jobStatus"] == "Completed"
    assert "already finished (Completed)" in body["message"]
    after = wait_result(quant, "sim", "ticker", job_id)["state"]
    assert after["status"] == "Completed"
    assert after["completed"] == after["size"]

    prepare_cancel = call(live_server, quant, "DELETE", f"/backtest/sim/ticker/prepare/{prepared}")
    assert prepare_cancel.status_code == 200
    assert prepare_cancel.json()["jobStatus"] == "Completed"
    assert "status" not in prepare_cancel.json()


def test_cancelling_a_completed_sweep_says_so_and_leaves_it_completed(
    live_server: LiveServer, quant: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    base = f"/backtest/sim/ticker/executeSweep/{prepared}"
    submitted = call(
        live_server,
        quant,
        "POST",
        base,
        json={"strategyId": strategy, "sweep": {"params": {"fast": {"values": [4, 6]}}}},
    )
    assert submitted.status_code == 202, submitted.text
    sweep_path = f"{base}/{submitted.json()['sweepId']}"
    done = _wait_sweep(live_server, quant, sweep_path)
    assert done["status"] == "COMPLETED"

    answer = call(live_server, quant, "DELETE", sweep_path)
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "cancelling"  # required and fixed by the description
    assert body["sweepId"] == submitted.json()["sweepId"]
    assert body["sweepStatus"] == "COMPLETED"
    assert "already finished (COMPLETED)" in body["message"]
    after = call(live_server, quant, "GET", sweep_path).json()
    assert after["status"] == "COMPLETED"
    assert after["state"]["status"] == "Completed"
    assert len(after["leaderboard"]) == len(done["leaderboard"]) == 2


# -- point 4: errors that arrive late or mislead -----------------------------------------


def test_an_undeclared_param_fails_its_job_at_once_naming_the_declared_ones(
    live_server: LiveServer, quant: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    """The wire reference keeps the 202 ("the job fails and the failure lists the declared
    names"); the job is stored already Failed, so the first poll says why."""
    response = call(
        live_server,
        quant,
        "POST",
        EXECUTE,
        json={"prepareJobId": prepared, "strategyId": strategy, "params": {"fastt": "20"}},
    )
    assert response.status_code == 202, response.text
    job_id = response.json()["jobId"]
    first_poll = call(live_server, quant, "GET", f"{EXECUTE}/{job_id}")
    assert first_poll.status_code == 200, first_poll.text
    state = first_poll.json()["state"]
    assert state["status"] == "Failed"
    detail = state["statusDetail"]
    assert detail.startswith(f"params.fastt is not a declared property of strategy {strategy}")
    assert "declared: fast, slow" in detail
    assert detail.count("declared:") == 1
    assert "did you mean 'fast'?" in detail
    wrong_type = call(
        live_server,
        quant,
        "POST",
        EXECUTE,
        json={"prepareJobId": prepared, "strategyId": strategy, "params": {"fast": "2.5"}},
    )
    assert wrong_type.status_code == 400
    assert "params.fast: '2.5' is not a whole number" in wrong_type.json()["message"]
    sweep = call(
        live_server,
        quant,
        "POST",
        f"/backtest/sim/ticker/executeSweep/{prepared}",
        json={"strategyId": strategy, "sweep": {"params": {"fastt": {"values": [20]}}}},
    )
    assert sweep.status_code == 400
    assert "declared: fast, slow" in sweep.json()["message"]


def test_a_param_spelled_as_a_string_is_the_same_job_and_the_same_sweep(
    live_server: LiveServer, quant: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    base = {"prepareJobId": prepared, "strategyId": strategy}
    number = _execute(live_server, quant, {**base, "params": {"fast": 20}})
    assert _execute(live_server, quant, {**base, "params": {"fast": "20"}}) == number
    assert _execute(live_server, quant, {**base, "params": {"fast": 20.0}}) == number
    assert _execute(live_server, quant, {**base, "params": {"fast": "21"}}) != number
    result = wait_result(quant, "sim", "ticker", number)
    assert result["state"]["status"] == "Completed"
    assert result["results"]["params"] == {"fast": 20}

    path = f"/backtest/sim/ticker/executeSweep/{prepared}"
    ids = [
        call(
            live_server,
            quant,
            "POST",
            path,
            json={"strategyId": strategy, "sweep": {"params": {"fast": {"values": values}}}},
        ).json()["sweepId"]
        for values in ([5, 20], ["5", "20"])
    ]
    assert ids[0] == ids[1]


def test_a_job_asked_on_the_wrong_path_tells_its_owner_where_it_is_and_no_one_else(
    live_server: LiveServer,
    quant: AuthenticatedSession,
    other: AuthenticatedSession,
    prepared: str,
    strategy: str,
) -> None:
    job_id = _execute(live_server, quant, {"prepareJobId": prepared, "strategyId": strategy})
    wrong_type = call(live_server, quant, "GET", f"/backtest/sim/kline/execute/{job_id}")
    assert wrong_type.status_code == 404
    assert (
        f"read it at GET /v1/backtest/sim/ticker/execute/{job_id}" in (wrong_type.json()["message"])
    )
    wrong_kind = call(live_server, quant, "GET", f"{EXECUTE}/{prepared}")
    assert wrong_kind.status_code == 404
    assert (
        f"is a prepare job: read it at GET /v1/backtest/sim/ticker/prepare/{prepared}"
        in (wrong_kind.json()["message"])
    )
    # Another user gets the same 404 as for an id that does not exist: no hint, no path.
    theirs = call(live_server, other, "GET", f"/backtest/sim/kline/execute/{job_id}")
    unknown = call(live_server, other, "GET", "/backtest/sim/kline/execute/nosuchjob")
    assert theirs.status_code == unknown.status_code == 404
    assert theirs.json()["message"] == unknown.json()["message"].replace("nosuchjob", job_id)
    assert "read it at" not in theirs.json()["message"]


# -- point 6: conformance ------------------------------------------------------------------


def test_any_well_formed_future_hour_is_404_and_only_malformed_or_pre_epoch_is_400(
    live_server: LiveServer,
) -> None:
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    future = [now + timedelta(hours=1), now + timedelta(days=3), now + timedelta(days=400)]
    hours = [f"{h:%Y-%m-%dT%H}" for h in future] + ["9999-12-31T23"]
    for kind in ("tickers", "klines"):
        for hour in hours:
            for fmt in ("lastra", "parquet"):
                response = httpx.get(
                    f"{live_server.base_url}/exchange/sim/{kind}/BTC/USDT",
                    params={"hour": hour, "format": fmt},
                    timeout=60,
                )
                assert response.status_code == 404, (kind, hour, response.text)
                assert response.json()["code"] == 404
                assert "not yet available" in response.json()["message"]
    for hour in ("1969-12-31T23", "2026-01-01T24", "tomorrow"):
        response = httpx.get(
            f"{live_server.base_url}/exchange/sim/klines/BTC/USDT", params={"hour": hour}
        )
        assert response.status_code == 400, (hour, response.text)


CLOSES_START = datetime(2025, 3, 3, tzinfo=UTC)


def _closes() -> list[tuple[int, float, float]]:
    """Three hours of 1-minute closes with volumes, as (epoch s, close, volume)."""
    first = int(CLOSES_START.timestamp())
    return [
        (first + 60 * i, round(100 + 9 * math.sin(i / 11) + 2 * math.sin(i / 2.3), 4), 1 + i % 4)
        for i in range(180)
    ]


def _candles_by_hand(width_s: int) -> list[tuple[int, float, float, float, float, float]]:
    """The close-only rows made into candles apart from the service: per epoch-aligned bucket,
    (start, first close, highest, lowest, last close, summed volume)."""
    buckets: dict[int, list[tuple[float, float]]] = {}
    for t, c, v in _closes():
        buckets.setdefault(t - t % width_s, []).append((c, v))
    return [
        (
            start,
            rows[0][0],
            max(c for c, _ in rows),
            min(c for c, _ in rows),
            rows[-1][0],
            sum(v for _, v in rows),
        )
        for start, rows in sorted(buckets.items())
    ]


def _dataset(session: AuthenticatedSession, name: str, csv: str) -> str:
    created = session.create_dataset(name=name, instrument="BTC/USDT")
    session.upload_dataset_file(created, io.BytesIO(csv.encode()))
    session.finalize_dataset_upload(dataset_id=created.dataset_id, upload_id=created.upload_id)
    deadline = time.monotonic() + 120
    pauses = Pauses()
    while time.monotonic() < deadline:
        state = session.get_dataset_upload(
            dataset_id=created.dataset_id, upload_id=created.upload_id
        )
        if state.status.value in ("ready", "failed"):
            assert state.status.value == "ready", state.to_dict()
            return str(created.dataset_id)
        pauses.sleep()
    raise AssertionError(f"dataset {name} not ingested")


def test_a_close_only_dataset_prepares_as_kline_and_runs_as_its_hand_built_candles(
    live_server: LiveServer, quant: AuthenticatedSession
) -> None:
    closes = "timestamp,close,volume\n" + "".join(f"{t},{c!r},{v!r}\n" for t, c, v in _closes())
    candles = "timestamp,open,high,low,close,volume\n" + "".join(
        f"{t},{o!r},{h!r},{lo!r},{c!r},{v!r}\n" for t, o, h, lo, c, v in _candles_by_hand(300)
    )
    close_only = _dataset(quant, "edges-closes", closes)
    by_hand = _dataset(quant, "edges-candles-5m", candles)
    dataset = call(live_server, quant, "GET", f"/datasets/{close_only}").json()
    assert (dataset["type"], dataset["cadence"]) == ("ticker", "1m")  # prices, no candles

    strategy = quant.compile_strategy(source("sma_kline.java")).strategy_id
    frm, to = "2025-03-03T00:00:00Z", "2025-03-03T03:00:00Z"
    results = []
    for dataset_id in (close_only, by_hand):
        response = call(
            live_server,
            quant,
            "POST",
            "/backtest/user/kline/prepare",
            json={"datasetId": dataset_id, "from": frm, "to": to, "cadence": "5m"},
        )
        assert response.status_code == 202, response.text
        job_id = response.json()["jobId"]
        state = wait_prepare(quant, "user", "kline", job_id).to_dict()
        assert state["status"] == "Completed", state
        assert state["cadence"] == "5m"
        assert state["coverageRatio"] == 1.0
        assert datetime.fromisoformat(state["dataFrom"]) == CLOSES_START
        assert datetime.fromisoformat(state["dataTo"]) == CLOSES_START + timedelta(minutes=175)
        run = call(
            live_server,
            quant,
            "POST",
            "/backtest/user/kline/execute",
            json={"prepareJobId": job_id, "strategyId": strategy, "params": {"sma.period": 3}},
        )
        assert run.status_code == 202, run.text
        result = wait_result(quant, "user", "kline", run.json()["jobId"])
        assert result["state"]["status"] == "Completed", result
        results.append(result["results"])
    server_built, hand_built = results
    assert server_built["totalTrades"] > 0
    for metric in ("totalTrades", "pnlTotal", "pnlTotalPercent", "winRate", "equityCurve"):
        assert server_built[metric] == hand_built[metric], metric
    # At its own cadence (1m) every bar of a close-only version is flat, and it runs.
    own = call(
        live_server,
        quant,
        "POST",
        "/backtest/user/kline/prepare",
        json={"datasetId": close_only, "from": frm, "to": to},
    )
    assert own.status_code == 202, own.text
    flat = wait_prepare(quant, "user", "kline", own.json()["jobId"]).to_dict()
    assert (flat["status"], flat["cadence"], flat["coverageRatio"]) == ("Completed", "1m", 1.0)
