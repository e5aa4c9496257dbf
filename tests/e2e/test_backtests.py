"""Black-box: prepare and execute through the official SDK and raw HTTP on a live server."""

from __future__ import annotations

import io
from datetime import datetime, timedelta

import httpx
import pyarrow.parquet as pq
import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.server import LiveServer
from tests.support.strategies import source

SIX_HOURS = recent_range(6)


@pytest.fixture(scope="module")
def bob(live_server: LiveServer) -> AuthenticatedSession:
    return auth(live_server.create_key("backtest-bob", tier="elite"), base_url=live_server.base_url)


@pytest.fixture(scope="module")
def ticker_prepare(bob: AuthenticatedSession) -> str:
    start, end = SIX_HOURS
    job = bob.prepare(exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end)
    state = wait_prepare(bob, "sim", "ticker", job.job_id)
    assert state.status.value == "Completed", state.to_dict()
    return str(job.job_id)


def test_prepare_reports_coverage_of_every_hour(
    bob: AuthenticatedSession, ticker_prepare: str
) -> None:
    state = bob.get_prepare_status(exchange_id="sim", type_="ticker", job_id=ticker_prepare)
    assert state.total_hours == 6
    assert state.hours_with_data + len(state.hours_without_data) == 6
    assert state.coverage_ratio == pytest.approx(state.hours_with_data / 6)
    assert state.size == 6
    assert state.completed == 6
    start = datetime.fromisoformat(SIX_HOURS[0].replace("Z", "+00:00"))
    assert start <= state.data_from < start + timedelta(hours=1)
    assert state.data_to < start + timedelta(hours=6)
    assert state.start_time <= state.end_time


def test_java_ticker_journey_gives_consistent_metrics(
    live_server: LiveServer, bob: AuthenticatedSession, ticker_prepare: str
) -> None:
    strategy_id = bob.compile_strategy(source("ema_cross.java")).strategy_id
    job = bob.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=ticker_prepare, strategy_id=strategy_id
    )
    body = wait_result(bob, "sim", "ticker", job.job_id)
    assert body["state"]["status"] == "Completed", body
    results = body["results"]
    assert results["strategyId"].rsplit(":", 1)[-1] == strategy_id
    assert results["instrument"] == "BTC/USDT"
    assert results["hostName"]
    assert results["iops"] > 0
    trades = results["totalTrades"]
    assert trades > 0
    points = results["equityCurve"]["points"]
    assert len(points) == trades + 1  # the anchor plus one point per closed trade
    assert points[0] == {
        "timestamp": int(
            datetime.fromisoformat(SIX_HOURS[0].replace("Z", "+00:00")).timestamp() * 1000
        ),
        "equity": 100.0,
    }
    assert points[-1]["equity"] == pytest.approx(100.0 + results["pnlTotal"], abs=1e-9)
    assert results["pnlTotalPercent"] == pytest.approx(results["pnlTotal"])  # 100 initial
    assert 0.0 <= results["winRate"] <= 1.0
    meta = results["equityCurve"]["meta"]
    assert meta == {
        "inputPointCount": trades + 1,
        "outputPointCount": trades + 1,
        "resampled": False,
        "differential": False,
        "outMode": "ARRAY",
    }
    assert "params" not in results


def test_kline_prepare_at_one_minute_and_java_kline_strategy(bob: AuthenticatedSession) -> None:
    start, end = SIX_HOURS
    job = bob.prepare(
        exchange_id="sim", type_="kline", instrument="ETH/USDT", from_=start, to=end, cadence="1m"
    )
    assert wait_prepare(bob, "sim", "kline", job.job_id).status.value == "Completed"
    strategy_id = bob.compile_strategy(source("sma_kline.java")).strategy_id
    run = bob.execute(
        exchange_id="sim", type_="kline", prepare_job_id=job.job_id, strategy_id=strategy_id
    )
    body = wait_result(bob, "sim", "kline", run.job_id)
    assert body["state"]["status"] == "Completed", body
    assert body["results"]["instrument"] == "ETH/USDT"


def test_qtscript_strategy_executes(bob: AuthenticatedSession, ticker_prepare: str) -> None:
    strategy_id = bob.compile_strategy(source("ema_cross.qts")).strategy_id
    run = bob.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=ticker_prepare, strategy_id=strategy_id
    )
    body = wait_result(bob, "sim", "ticker", run.job_id)
    assert body["state"]["status"] == "Completed", body


def test_a_failed_qtscript_execute_names_the_users_own_line(
    bob: AuthenticatedSession, ticker_prepare: str
) -> None:
    """The failure maps through the line map stored at registration, as validation does."""
    strategy_id = bob.compile_strategy(source("runtime_error.qts")).strategy_id
    run = bob.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=ticker_prepare, strategy_id=strategy_id
    )
    body = wait_result(bob, "sim", "ticker", run.job_id)
    assert body["state"]["status"] == "Failed", body
    assert body["state"]["statusDetail"].startswith("QTS line 5: "), body["state"]
    assert "ArrayIndexOutOfBoundsException" in body["state"]["statusDetail"]


def test_an_execute_failing_with_nul_in_its_message_fails_at_once_and_the_next_runs(
    bob: AuthenticatedSession, ticker_prepare: str
) -> None:
    """A strategy's exception message with NUL characters once made the job's final write fail
    on PostgreSQL (which cannot store NUL): the job never ended and was run again every 30 s.
    Now it fails like any other, its message shown with U+FFFD for each NUL, and the next
    execute of another strategy completes."""
    attacker = bob.compile_strategy(source("throws_nul_message.java")).strategy_id
    run = bob.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=ticker_prepare, strategy_id=attacker
    )
    body = wait_result(bob, "sim", "ticker", run.job_id, timeout=60)
    assert body["state"]["status"] == "Failed", body
    assert "stopped at\ufffdhere\ufffd" in body["state"]["statusDetail"], body["state"]
    victim = bob.compile_strategy(source("ema_cross.qts")).strategy_id
    after = bob.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=ticker_prepare, strategy_id=victim
    )
    assert wait_result(bob, "sim", "ticker", after.job_id)["state"]["status"] == "Completed"


def test_prepare_ids_are_deterministic_across_date_forms(bob: AuthenticatedSession) -> None:
    day = (datetime.now().astimezone() - timedelta(days=3)).date()
    nxt = day + timedelta(days=1)
    forms = [
        (day.isoformat(), nxt.isoformat()),
        (day.strftime("%Y%m%d"), nxt.strftime("%Y%m%d")),
        (f"{day.isoformat()}T00:00:00Z", f"{nxt.isoformat()}T00:00:00+00:00"),
    ]
    ids = {
        bob.prepare(
            exchange_id="sim", type_="funding", instrument="BTC/USDT:USDT", from_=a, to=b
        ).job_id
        for a, b in forms
    }
    assert len(ids) == 1


def test_execute_ids_normalise_numbers_and_explicit_defaults(
    live_server: LiveServer, bob: AuthenticatedSession, ticker_prepare: str
) -> None:
    strategy_id = bob.compile_strategy(source("ema_cross.java")).strategy_id
    url = "/backtest/sim/ticker/execute"
    base = {"prepareJobId": ticker_prepare, "strategyId": strategy_id}

    def job_id(body: dict[str, object]) -> str:
        response = call(live_server, bob, "POST", url, json=body)
        assert response.status_code == 202, response.text
        return str(response.json()["jobId"])

    bare = job_id(base)
    assert (
        job_id(
            {
                **base,
                "storeSignals": False,
                "baseConfig": {"initialFunding": 100.0, "feeRate": 0.001, "feeLeg": "RECEIVED"},
                "equityCurve": {"differential": False, "outMode": "ARRAY"},
            }
        )
        == bare
    )
    nine = job_id({**base, "params": {"fast": 9}})
    assert job_id({**base, "params": {"fast": 9.0}}) == nine
    assert nine != bare
    assert job_id({**base, "params": {"fast": 10}}) != nine


@pytest.mark.parametrize(
    ("path", "body", "status", "fragment"),
    [
        ("/backtest/nowhere/ticker/prepare", {"instrument": "BTC/USDT"}, 404, "nowhere"),
        ("/backtest/sim/options/prepare", {"instrument": "BTC/USDT"}, 404, "options"),
        (
            "/backtest/sim/kline/prepare",
            {"instrument": "BTC/USDT", "cadence": "15s"},
            400,
            "use one of 1s, 5s, 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q",
        ),
        (
            "/backtest/sim/ticker/prepare",
            {"instrument": "BTC/USDT", "from": "2001-01-01"},
            400,
            "lookback",
        ),
        (
            "/backtest/sim/ticker/prepare",
            {"instrument": "BTC/USDT", "to": "2999-01-01"},
            400,
            "future",
        ),
        (
            "/backtest/sim/ticker/prepare",
            {"instrument": "BTC/USDT", "from": "yesterday"},
            400,
            "from",
        ),
        ("/backtest/sim/ticker/prepare", {"instrument": "NOPE/USDT"}, 404, "NOPE"),
        ("/backtest/sim/ticker/prepare", {"instrument": "BTC/USDT", "extra": 1}, 400, "extra"),
    ],
)
def test_prepare_errors(
    live_server: LiveServer,
    bob: AuthenticatedSession,
    path: str,
    body: dict[str, object],
    status: int,
    fragment: str,
) -> None:
    start, end = SIX_HOURS
    response = call(live_server, bob, "POST", path, json={"from": start, "to": end, **body})
    assert response.status_code == status, response.text
    assert response.json()["code"] == status
    assert fragment in response.json()["message"]


def test_execute_errors(
    live_server: LiveServer, bob: AuthenticatedSession, ticker_prepare: str
) -> None:
    strategy_id = bob.compile_strategy(source("ema_cross.java")).strategy_id
    base = {"prepareJobId": ticker_prepare, "strategyId": strategy_id}
    cases = [
        ("/backtest/sim/funding/execute", base, 400, "ticker and kline"),
        (
            "/backtest/sim/ticker/execute",
            {**base, "baseConfig": {"buyFeeRate": 0.001, "sellFeeRate": 0.002}},
            400,
            "different buy",
        ),
        ("/backtest/sim/ticker/execute", {**base, "baseConfig": {"feeLeg": "BASE"}}, 400, "feeLeg"),
        ("/backtest/sim/ticker/execute", {**base, "prepareJobId": "nope"}, 404, "nope"),
        ("/backtest/sim/ticker/execute", {**base, "strategyId": "nope"}, 404, "nope"),
        ("/backtest/sim/kline/execute", base, 404, ticker_prepare),
    ]
    for path, body, status, fragment in cases:
        response = call(live_server, bob, "POST", path, json=body)
        assert response.status_code == status, (path, body, response.text)
        assert fragment in response.json()["message"], (path, response.text)


def test_undeclared_param_fails_the_job_at_once_listing_declared_names(
    bob: AuthenticatedSession, live_server: LiveServer, ticker_prepare: str
) -> None:
    """202 as the wire reference says, and the job is Failed from its first poll, listing the
    declared names once (more in test_api_edges.py)."""
    strategy_id = bob.compile_strategy(source("ema_cross.java")).strategy_id
    response = call(
        live_server,
        bob,
        "POST",
        "/backtest/sim/ticker/execute",
        json={"prepareJobId": ticker_prepare, "strategyId": strategy_id, "params": {"fastest": 3}},
    )
    assert response.status_code == 202, response.text
    body = wait_result(bob, "sim", "ticker", response.json()["jobId"], timeout=5)
    assert body["state"]["status"] == "Failed"
    message = body["state"]["statusDetail"]
    assert "params.fastest" in message
    assert "declared: fast, slow" in message


def test_params_are_applied_and_echoed(
    bob: AuthenticatedSession, live_server: LiveServer, ticker_prepare: str
) -> None:
    strategy_id = bob.compile_strategy(source("ema_cross.java")).strategy_id
    ids = []
    for params in ({"fast": 5, "slow": 40}, {"fast": 30, "slow": 60}):
        response = call(
            live_server,
            bob,
            "POST",
            "/backtest/sim/ticker/execute",
            json={"prepareJobId": ticker_prepare, "strategyId": strategy_id, "params": params},
        )
        ids.append((params, response.json()["jobId"]))
    trades = []
    for params, job_id in ids:
        body = wait_result(bob, "sim", "ticker", job_id)
        assert body["results"]["params"] == params
        trades.append(body["results"].get("totalTrades", 0))
    assert trades[0] > trades[1]  # faster averages cross more often


def test_stored_signals_download_as_parquet_and_count_in_usage(live_server: LiveServer) -> None:
    session = auth(
        live_server.create_key("backtest-signals", tier="pro"), base_url=live_server.base_url
    )
    start, end = recent_range(2)
    prepared = session.prepare(
        exchange_id="sim", type_="ticker", instrument="SOL/USDT", from_=start, to=end
    )
    assert wait_prepare(session, "sim", "ticker", prepared.job_id).status.value == "Completed"
    strategy_id = session.compile_strategy(source("ema_cross.java")).strategy_id
    job = session.execute(
        exchange_id="sim",
        type_="ticker",
        prepare_job_id=prepared.job_id,
        strategy_id=strategy_id,
        store_signals=True,
    )
    body = wait_result(session, "sim", "ticker", job.job_id)
    results = body["results"]
    assert results["signalsUpload"] == "Done"
    table = pq.read_table(io.BytesIO(httpx.get(results["signalsUrl"]).content))
    assert table.num_rows == results["signalCount"] > 0
    usage = session.get_account_usage()
    assert usage.signals_used == 1
    assert usage.signal_bytes_used > 0
    tampered = results["signalsUrl"].replace("sig=", "sig=0")
    assert httpx.get(tampered).status_code == 404
    # the additive CSV form (docs/api-decisions.md): same rows and values, the owner only
    path = f"/backtest/sim/ticker/execute/{job.job_id}/signals"
    response = call(live_server, session, "GET", path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"] == (
        f'attachment; filename="signals_{job.job_id}.csv"'
    )
    lines = response.text.splitlines()
    assert lines[0] == "ts,side,price,info"
    assert len(lines) == 1 + table.num_rows
    first = lines[1].split(",")
    assert int(first[0]) == table.column("ts")[0].as_py()
    assert int(first[1]) == table.column("side")[0].as_py()
    assert float(first[2]) == table.column("price")[0].as_py()
    assert httpx.get(f"{live_server.base_url}{path}").status_code == 401
    other = auth(live_server.create_key("backtest-signals-eve"), base_url=live_server.base_url)
    assert call(live_server, other, "GET", path).status_code == 404
    unstored = session.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=prepared.job_id, strategy_id=strategy_id
    )
    wait_result(session, "sim", "ticker", unstored.job_id)
    missing = call(
        live_server, session, "GET", f"/backtest/sim/ticker/execute/{unstored.job_id}/signals"
    )
    assert missing.status_code == 404
    assert "storeSignals" in missing.json()["message"]


def test_equity_curve_options_shape_the_curve(
    bob: AuthenticatedSession, live_server: LiveServer, ticker_prepare: str
) -> None:
    strategy_id = bob.compile_strategy(source("ema_cross.java")).strategy_id
    response = call(
        live_server,
        bob,
        "POST",
        "/backtest/sim/ticker/execute",
        json={
            "prepareJobId": ticker_prepare,
            "strategyId": strategy_id,
            "equityCurve": {"resample": 5, "outMode": "SHORT"},
        },
    )
    body = wait_result(bob, "sim", "ticker", response.json()["jobId"])
    curve = body["results"]["equityCurve"]
    assert curve["meta"]["outMode"] == "SHORT"
    assert curve["meta"]["outputPointCount"] == len(curve["timestamps"]) == len(curve["equities"])
    assert curve["meta"]["outputPointCount"] <= 5
    assert curve["meta"]["resampled"] is True


def test_other_users_jobs_answer_404(
    live_server: LiveServer, bob: AuthenticatedSession, ticker_prepare: str
) -> None:
    eve = auth(live_server.create_key("backtest-eve"), base_url=live_server.base_url)
    response = call(live_server, eve, "GET", f"/backtest/sim/ticker/prepare/{ticker_prepare}")
    assert response.status_code == 404
    strategy_id = eve.compile_strategy(source("ema_cross.java")).strategy_id
    response = call(
        live_server,
        eve,
        "POST",
        "/backtest/sim/ticker/execute",
        json={"prepareJobId": ticker_prepare, "strategyId": strategy_id},
    )
    assert response.status_code == 404


def test_a_prepare_can_be_cancelled_and_the_next_one_runs(
    live_server: LiveServer, bob: AuthenticatedSession
) -> None:
    """Additive (docs/api-decisions.md): DELETE on a prepare stops it; another user cannot
    cancel it (404); the same user's next prepare runs to completion."""
    start, end = recent_range(hours=24 * 20)
    body = {"from": start, "to": end, "instrument": "BTC/USDT"}
    accepted = call(live_server, bob, "POST", "/backtest/sim/ticker/prepare", json=body)
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["jobId"]
    eve = auth(live_server.create_key("cancel-eve"), base_url=live_server.base_url)
    path = f"/backtest/sim/ticker/prepare/{job_id}"
    assert call(live_server, eve, "DELETE", path).status_code == 404

    cancelled = call(live_server, bob, "DELETE", path)

    assert cancelled.status_code == 200
    assert cancelled.json() == {"status": "cancelling", "jobId": job_id}
    state = wait_prepare(bob, "sim", "ticker", job_id)
    assert state.status.value == "Aborted"
    assert state.status_detail in ("cancelled on request", "cancelled before it started")
    start, end = recent_range(hours=2)
    again = call(
        live_server,
        bob,
        "POST",
        "/backtest/sim/ticker/prepare",
        json={"from": start, "to": end, "instrument": "BTC/USDT"},
    )
    assert wait_prepare(bob, "sim", "ticker", again.json()["jobId"]).status.value == "Completed"
