"""Black-box: parameter sweeps through the official SDK and raw HTTP on a live server."""

from __future__ import annotations

import itertools
import math
import time
from pathlib import Path
from typing import Any

import pytest
from qtsurfer.api.client._generated.models.equity_curve_out_mode import EquityCurveOutMode
from qtsurfer.api.client._generated.models.get_sweep_result_objective import (
    GetSweepResultObjective,
)
from qtsurfer.api.client._generated.models.get_sweep_result_order import GetSweepResultOrder
from qtsurfer.api.client._generated.models.get_sweep_result_ranking import GetSweepResultRanking
from qtsurfer_sdk import AuthenticatedSession, QTSError, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

RANGE = recent_range(4)
METRICS = ("sharpe", "sortino", "pnl", "pnlPct", "cagr", "maxDdPct", "trades", "winRate")
GRID = {"fast": {"from": 5, "to": 15, "step": 5}, "slow": {"values": [20, 30]}}


@pytest.fixture(scope="module")
def carol(live_server: LiveServer) -> AuthenticatedSession:
    return auth(live_server.create_key("sweep-carol", tier="elite"), base_url=live_server.base_url)


@pytest.fixture(scope="module")
def prepared(carol: AuthenticatedSession) -> str:
    start, end = RANGE
    job = carol.prepare(
        exchange_id="sim", type_="ticker", instrument="ETH/USDT", from_=start, to=end
    )
    state = wait_prepare(carol, "sim", "ticker", job.job_id)
    assert state.status.value == "Completed", state.to_dict()
    return str(job.job_id)


@pytest.fixture(scope="module")
def strategy(carol: AuthenticatedSession) -> str:
    return str(carol.compile_strategy(source("ema_cross_fragile.java")).strategy_id)


def submit(
    server: LiveServer, session: AuthenticatedSession, prepared: str, body: dict[str, Any]
) -> Any:
    return call(server, session, "POST", f"/backtest/sim/ticker/executeSweep/{prepared}", json=body)


def result_of(
    session: AuthenticatedSession, prepared: str, sweep_id: str, **query: str
) -> dict[str, Any]:
    """``get_sweep_result`` with plain-string query values turned into the client's enums."""
    enums = {
        "objective": GetSweepResultObjective,
        "order": GetSweepResultOrder,
        "ranking": GetSweepResultRanking,
    }
    typed = {k: enums[k](v) for k, v in query.items()}
    result: dict[str, Any] = session.get_sweep_result(
        exchange_id="sim", type_="ticker", request_id=prepared, sweep_id=sweep_id, **typed
    ).to_dict()
    return result


def wait_sweep(
    session: AuthenticatedSession, prepared: str, sweep_id: str, timeout: float = 300, **query: str
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        result = result_of(session, prepared, sweep_id, **query)
        if result["progress"]["pendingShards"] == 0 and result["status"] != "RUNNING":
            return result
        pauses.sleep()
    raise AssertionError(f"sweep {sweep_id} not finished after {timeout}s")


def rerun(
    server: LiveServer,
    session: AuthenticatedSession,
    prepared: str,
    strategy: str,
    params: dict[str, Any],
    base_config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A trial re-run through ``POST .../execute`` with its params (raw: 0.4.2 has no params)."""
    body: dict[str, Any] = {"prepareJobId": prepared, "strategyId": strategy, "params": params}
    if base_config is not None:
        body["baseConfig"] = base_config
    response = call(server, session, "POST", "/backtest/sim/ticker/execute", json=body)
    assert response.status_code == 202, response.text
    result = wait_result(session, "sim", "ticker", response.json()["jobId"])
    assert result["state"]["status"] == "Completed", result
    results: dict[str, Any] = result["results"]
    return results


@pytest.fixture(scope="module")
def grid_sweep(carol: AuthenticatedSession, prepared: str, strategy: str) -> dict[str, Any]:
    accepted = carol.sweep(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        strategy_id=strategy,
        params=GRID,
        objective="pnl",  # Sharpe needs two daily returns; these runs last four hours
    )
    assert accepted.total_runs == 6
    assert accepted.queued is True
    natural = wait_sweep(carol, prepared, accepted.sweep_id, order="natural")
    return {"accepted": accepted.to_dict(), "natural": natural}


def test_grid_sweep_runs_every_vector_in_expansion_order(grid_sweep: dict[str, Any]) -> None:
    natural = grid_sweep["natural"]
    assert natural["status"] == "COMPLETED"
    assert natural["state"]["status"] == "Completed"
    assert natural["order"] == "natural"
    rows = natural["leaderboard"]
    expected = [{"fast": f, "slow": s} for f, s in itertools.product([5, 10, 15], [20, 30])]
    assert [r["runIx"] for r in rows] == list(range(6))
    assert [r["params"] for r in rows] == expected
    for row in rows:
        assert set(METRICS) <= set(row)
        assert row["aborted"] is False
        assert row["belowTradeFloor"] == (row["trades"] < 30)
        assert row["runtimeMs"] >= 0
    progress = natural["progress"]
    assert progress["done"] == progress["total"] == 6
    assert progress["failedShards"] == 0


def test_identical_submission_answers_the_same_sweep_without_queueing(
    live_server: LiveServer,
    carol: AuthenticatedSession,
    prepared: str,
    strategy: str,
    grid_sweep: dict[str, Any],
) -> None:
    body = {
        "strategyId": strategy,
        "sweep": {
            "params": {
                "fast": {"from": 5.0, "to": 15, "step": 5},
                "slow": {"values": [20.0, 30.0]},
            },
            "objective": "pnl",
            "sampler": "grid",
        },
        "minTradeFloor": 30,
        "equityCurve": {"resample": 7, "mode": "auto"},
    }
    response = submit(live_server, carol, prepared, body)
    assert response.status_code == 202, response.text
    assert response.json()["sweepId"] == grid_sweep["accepted"]["sweepId"]
    assert response.json()["queued"] is False


def test_winner_rerun_through_execute_agrees_on_every_metric(
    live_server: LiveServer,
    carol: AuthenticatedSession,
    prepared: str,
    strategy: str,
    grid_sweep: dict[str, Any],
) -> None:
    row = max(grid_sweep["natural"]["leaderboard"], key=lambda r: r["pnl"])
    sweep_id = grid_sweep["accepted"]["sweepId"]
    path = f"/backtest/sim/ticker/executeSweep/{prepared}/{sweep_id}"
    described = call(live_server, carol, "GET", path).json()
    # What a row needs to be re-run, in the result itself (additive; docs/api-decisions.md).
    assert described["strategyId"] == strategy
    assert described["baseConfig"] == {
        "initialFunding": 100.0,
        "buyFeeRate": 0.001,
        "sellFeeRate": 0.001,
        "feeLeg": "RECEIVED",
    }
    results = rerun(
        live_server,
        carol,
        prepared,
        described["strategyId"],
        row["params"],
        described["baseConfig"],
    )
    if row["trades"] == 0:
        assert "pnlTotal" not in results
        return
    assert results["pnlTotal"] == row["pnl"]
    assert results["pnlTotalPercent"] == row["pnlPct"]
    assert results["totalTrades"] == row["trades"]
    assert results["winRate"] == row["winRate"]
    assert results["sharpeRatio"] == row["sharpe"]
    assert results["sortinoRatio"] == row["sortino"]
    assert results["cagr"] == row["cagr"]
    assert results["maxDrawdownPercent"] == row["maxDdPct"]


def test_plateau_ranking_matches_a_brute_force_neighbourhood(
    carol: AuthenticatedSession, prepared: str, grid_sweep: dict[str, Any]
) -> None:
    natural = {r["runIx"]: r for r in grid_sweep["natural"]["leaderboard"]}
    ranked = result_of(carol, prepared, grid_sweep["accepted"]["sweepId"])
    assert ranked["ranking"] == "plateau"
    assert ranked["objective"] == "pnl"  # the submitted objective is the default
    fasts, slows = [5, 10, 15], [20, 30]
    for row in ranked["leaderboard"]:
        i, j = fasts.index(row["params"]["fast"]), slows.index(row["params"]["slow"])
        around = [(i + d, j) for d in (-1, 1)] + [(i, j + d) for d in (-1, 1)]
        neighbours = [natural[a * 2 + b]["pnl"] for a, b in around if 0 <= a < 3 and 0 <= b < 2]
        assert row["neighbourCount"] == len(neighbours)
        assert row["plateauScore"] == min([natural[row["runIx"]]["pnl"], *neighbours])
    scores = [r["plateauScore"] for r in ranked["leaderboard"]]
    assert scores == sorted(scores, reverse=True)
    assert [r["rank"] for r in ranked["leaderboard"]] == list(range(1, 7))
    raw = result_of(
        carol, prepared, grid_sweep["accepted"]["sweepId"], objective="maxdd", ranking="raw"
    )
    dds = [r["maxDdPct"] for r in raw["leaderboard"]]
    assert raw["ranking"] == "raw"
    assert raw["objective"] == "maxdd"
    assert dds == sorted(dds)


def test_sensitivity_aggregates_match_the_rows(
    carol: AuthenticatedSession, prepared: str, grid_sweep: dict[str, Any]
) -> None:
    rows = grid_sweep["natural"]["leaderboard"]
    body = carol.get_sweep_sensitivity(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        sweep_id=grid_sweep["accepted"]["sweepId"],
    ).to_dict()
    assert body["rowsAnalysed"] == 6
    assert body["objective"] == "pnl"
    fast = next(m for m in body["marginals"] if m["param"] == "fast")
    for point in fast["points"]:
        values = [r["pnl"] for r in rows if r["params"]["fast"] == point["value"]]
        assert point["count"] == len(values)
        assert point["best"] == max(values)
        assert point["worst"] == min(values)
        assert point["mean"] == pytest.approx(sum(values) / len(values))
    (heatmap,) = body["heatmaps"]
    assert {heatmap["paramA"], heatmap["paramB"]} == {"fast", "slow"}
    assert len(heatmap["cells"]) == 6
    assert body["heatmapsTruncated"] is False


def test_trial_equity_curve_equals_the_execute_curve_of_the_same_params(
    live_server: LiveServer,
    carol: AuthenticatedSession,
    prepared: str,
    strategy: str,
    grid_sweep: dict[str, Any],
) -> None:
    rows = [r for r in grid_sweep["natural"]["leaderboard"] if r["trades"] > 0]
    assert rows, "the sweep produced no trading trial"
    row = rows[0]
    assert row["equityCurve"]["url"].endswith(f"/runs/{row['runIx']}/equityCurve")
    curve = carol.get_sweep_run_equity_curve(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        sweep_id=grid_sweep["accepted"]["sweepId"],
        run_ix=row["runIx"],
    ).to_dict()
    results = rerun(live_server, carol, prepared, strategy, row["params"])
    assert curve["points"] == results["equityCurve"]["points"]
    short = carol.get_sweep_run_equity_curve(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        sweep_id=grid_sweep["accepted"]["sweepId"],
        run_ix=row["runIx"],
        out_mode=EquityCurveOutMode.SHORT,
        resample=2,
    ).to_dict()
    assert short["meta"]["outMode"] == "SHORT"
    assert short["meta"]["outputPointCount"] <= max(2, len(curve["points"]))
    assert short["timestamps"][0] == curve["points"][0]["timestamp"]
    assert short["timestamps"][-1] == curve["points"][-1]["timestamp"]


def test_missing_run_curve_is_404(
    carol: AuthenticatedSession, prepared: str, grid_sweep: dict[str, Any]
) -> None:
    with pytest.raises(QTSError) as caught:
        carol.get_sweep_run_equity_curve(
            exchange_id="sim",
            type_="ticker",
            request_id=prepared,
            sweep_id=grid_sweep["accepted"]["sweepId"],
            run_ix=99,
        )
    assert caught.value.status == 404


def test_a_large_top_n_keeps_exactly_the_best_n_curves(
    live_server: LiveServer, carol: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    """A shard writes its best rows' curves after the rows, in batches (every 2 s, when 50
    wait, and at its end) and drops those of rows that left its best: 90 vectors keeping 60
    end with the curves of the best 60 by Sharpe (ties by runIx), each the row's own."""
    body = {
        "strategyId": strategy,
        "sweep": {
            "params": {"fast": {"from": 2, "to": 91, "step": 1}, "slow": {"values": [95]}},
            "objective": "sharpe",
            "sampler": "grid",
        },
        "shards": 1,
        "equityCurve": {"mode": "topN", "n": 60},
    }
    response = submit(live_server, carol, prepared, body)
    assert response.status_code == 202, response.text
    sweep_id = response.json()["sweepId"]
    final = wait_sweep(carol, prepared, sweep_id, order="natural")
    assert final["status"] == "COMPLETED"
    rows = final["leaderboard"]
    assert len(rows) == 90
    ranked = sorted(
        (r for r in rows if not r["aborted"] and r["trades"] > 0),
        key=lambda r: (-r["sharpe"], r["runIx"]),
    )
    assert len(ranked) > 60
    assert {r["runIx"] for r in rows if r.get("equityCurve")} == {r["runIx"] for r in ranked[:60]}
    best, last = ranked[0], ranked[59]
    for row in (best, last):
        curve = carol.get_sweep_run_equity_curve(
            exchange_id="sim",
            type_="ticker",
            request_id=prepared,
            sweep_id=sweep_id,
            run_ix=row["runIx"],
        ).to_dict()
        results = rerun(live_server, carol, prepared, strategy, row["params"])
        assert curve["points"] == results["equityCurve"]["points"]


def test_a_vector_that_throws_is_an_aborted_row_and_the_others_finish(
    carol: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    accepted = carol.sweep(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        strategy_id=strategy,
        params={"fast": {"values": [5, 10]}, "failAt": {"values": [10]}},
    )
    result = wait_sweep(carol, prepared, accepted.sweep_id, order="natural")
    rows = {r["params"]["fast"]: r for r in result["leaderboard"]}
    assert rows[10]["aborted"] is True
    assert rows[10]["trades"] == 0
    assert rows[5]["aborted"] is False
    assert result["progress"]["aborted"] == 1
    assert result["status"] == "COMPLETED"


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"nope": {"values": [1]}}, "declared: failAt, fast, scale, slow"),
        ({"fast": {"values": [2.5]}}, "'fast'"),
        ({"scale": {"values": [True]}}, "'scale'"),
        ({"fast": {"from": 10, "to": 5, "step": 1}}, "below"),
        ({"fast": {"values": [3_000_000_000]}}, "'fast': 3000000000 is outside the range of int"),
        ({"fast": {"values": [10**400]}}, "outside the range of int"),  # once a 500
    ],
)
def test_invalid_axes_are_400_naming_the_problem(
    live_server: LiveServer,
    carol: AuthenticatedSession,
    prepared: str,
    strategy: str,
    params: dict[str, Any],
    fragment: str,
) -> None:
    response = submit(
        live_server, carol, prepared, {"strategyId": strategy, "sweep": {"params": params}}
    )
    assert response.status_code == 400, response.text
    assert fragment in response.json()["message"]


def test_a_grid_above_the_tier_cartesian_limit_is_400_suggesting_samplers(
    live_server: LiveServer,
) -> None:
    dave = auth(live_server.create_key("sweep-dave", tier="free"), base_url=live_server.base_url)
    strategy = dave.compile_strategy(source("ema_cross_fragile.java")).strategy_id
    start, end = RANGE
    job = dave.prepare(
        exchange_id="sim", type_="ticker", instrument="ETH/USDT", from_=start, to=end
    )
    assert wait_prepare(dave, "sim", "ticker", job.job_id).status.value == "Completed"
    big = {"fast": {"from": 2, "to": 12, "step": 1}, "slow": {"from": 10, "to": 20, "step": 1}}
    body = {"strategyId": strategy, "sweep": {"params": big}}
    response = submit(live_server, dave, job.job_id, body)
    assert response.status_code == 400
    assert "121 combinations" in response.json()["message"]
    assert "random" in response.json()["message"]
    assert "lhs" in response.json()["message"]
    sampled = {"strategyId": strategy, "sweep": {"params": big, "sampler": "random", "samples": 3}}
    assert submit(live_server, dave, job.job_id, sampled).status_code == 202


def test_limits_are_checked_before_queueing(
    live_server: LiveServer, prepared: str, strategy: str, carol: AuthenticatedSession
) -> None:
    funding = call(
        live_server,
        carol,
        "POST",
        f"/backtest/sim/funding/executeSweep/{prepared}",
        json={"strategyId": strategy, "sweep": {"params": GRID}},
    )
    assert funding.status_code == 400
    missing = call(
        live_server,
        carol,
        "POST",
        "/backtest/sim/ticker/executeSweep/nope",
        json={"strategyId": strategy, "sweep": {"params": GRID}},
    )
    assert missing.status_code == 404
    one_fold = submit(
        live_server,
        carol,
        prepared,
        {"strategyId": strategy, "sweep": {"params": GRID}, "walkForward": {"folds": 1}},
    )
    assert one_fold.status_code == 400
    assert "folds" in one_fold.json()["message"]


def test_random_and_lhs_are_reproducible_from_the_seed(
    live_server: LiveServer, carol: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    axes = {"fast": {"from": 3, "to": 12, "step": 1}, "slow": {"from": 20, "to": 40, "step": 5}}
    first = carol.sweep(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        strategy_id=strategy,
        params=axes,
        sampler="lhs",
        samples=5,
    )
    assert 0 <= first.seed <= 2**53 - 1
    again = carol.sweep(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        strategy_id=strategy,
        params=axes,
        sampler="lhs",
        samples=5,
        seed=first.seed,
    )
    assert again.total_runs == 5
    a = wait_sweep(carol, prepared, first.sweep_id, order="natural")["leaderboard"]
    b = wait_sweep(carol, prepared, again.sweep_id, order="natural")["leaderboard"]
    assert [r["params"] for r in a] == [r["params"] for r in b]
    fast_strata = sorted(math.floor((r["params"]["fast"] - 3) / 10 * 5) for r in a)
    assert fast_strata == [0, 1, 2, 3, 4]  # one sample per fifth of the fast axis


def test_walk_forward_scores_one_winner_per_fold(
    carol: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    accepted = carol.sweep(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        strategy_id=strategy,
        params={"fast": {"values": [5, 9]}, "slow": {"values": [21]}},
        walk_forward={"folds": 2},
    )
    walk = accepted.to_dict()["walkForward"]
    assert walk == {"folds": 2, "inSamplePct": 66, "totalRuns": 6}
    result = wait_sweep(carol, prepared, accepted.sweep_id)
    assert result["ranking"] == "raw"
    assert "pbo" not in result
    folds = result["walkForward"]["results"]
    assert result["walkForward"]["completedFolds"] == 2
    assert [f["foldIx"] for f in folds] == [0, 1]
    assert folds[0]["inSampleFrom"] == 0
    assert folds[0]["inSampleTo"] < folds[0]["outOfSampleTo"] <= folds[1]["inSampleFrom"] + 1
    assert all(f["vectorsRun"] == 2 for f in folds)
    assert sorted(r["runIx"] for r in result["leaderboard"]) == [0, 1]
    for row in result["leaderboard"]:
        assert "plateauScore" not in row
        assert "deflatedSharpe" not in row


def test_cancel_stops_the_sweep_and_keeps_finished_rows(
    live_server: LiveServer, carol: AuthenticatedSession, prepared: str, strategy: str
) -> None:
    accepted = carol.sweep(
        exchange_id="sim",
        type_="ticker",
        request_id=prepared,
        strategy_id=strategy,
        # 316 vectors: enough that the sweep is still running when the cancel lands (79 of
        # them once finished first on a fast machine).
        params={"fast": {"from": 2, "to": 80, "step": 1}, "slow": {"values": [90, 100, 110, 120]}},
    )
    cancel = carol.cancel_sweep(
        exchange_id="sim", type_="ticker", request_id=prepared, sweep_id=accepted.sweep_id
    )
    assert cancel.to_dict() == {"status": "cancelling", "sweepId": accepted.sweep_id}
    result = wait_sweep(carol, prepared, accepted.sweep_id, order="natural")
    assert result["status"] == "CANCELLED"
    assert result["state"]["status"] == "Aborted"
    assert result["progress"]["done"] < 316
    intruder = auth(live_server.create_key("sweep-mallory"), base_url=live_server.base_url)
    with pytest.raises(QTSError) as caught:
        intruder.get_sweep_result(
            exchange_id="sim", type_="ticker", request_id=prepared, sweep_id=accepted.sweep_id
        )
    assert caught.value.status == 404


def test_unfinished_sweep_resumes_after_a_restart_without_redoing_rows(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "sweep-restart", extra_env={"BACKTESTD_DASK_WORKERS": "1"})
    server.start()
    try:
        session = auth(server.create_key("sweep-restarter"), base_url=server.base_url)
        strategy = session.compile_strategy(source("ema_cross_fragile.java")).strategy_id
        start, end = recent_range(6)
        job = session.prepare(
            exchange_id="sim", type_="ticker", instrument="SOL/USDT", from_=start, to=end
        )
        assert wait_prepare(session, "sim", "ticker", job.job_id).status.value == "Completed"
        accepted = session.sweep(
            exchange_id="sim",
            type_="ticker",
            request_id=job.job_id,
            strategy_id=strategy,
            params={"fast": {"from": 2, "to": 121, "step": 1}, "slow": {"values": [130]}},
        )
        deadline = time.monotonic() + 120
        before: dict[str, Any] = {}
        while time.monotonic() < deadline:  # rows appear in batches (every 0.5 s)
            before = result_of(session, job.job_id, accepted.sweep_id, order="natural")
            if before["progress"]["done"] >= 1:
                break
            time.sleep(0.05)
        assert 1 <= before["progress"]["done"] < 120, before["progress"]
        server.stop()
        server.start()
        session = auth(server.create_key("sweep-restarter"), base_url=server.base_url)
        final = wait_sweep(session, job.job_id, accepted.sweep_id, order="natural")
        assert final["status"] == "COMPLETED"
        assert [r["runIx"] for r in final["leaderboard"]] == list(range(120))
        by_ix = {r["runIx"]: r for r in final["leaderboard"]}
        stored = (*METRICS, "params", "runtimeMs", "aborted")
        for row in before["leaderboard"]:
            # The same runtimeMs too: a row finished before the restart was not run again.
            assert {k: by_ix[row["runIx"]][k] for k in stored} == {k: row[k] for k in stored}
        # A shard writes its best rows' curves after the rows (every 2 s and at its end), so
        # the stop lost some; the resumed shard ran those vectors again for them: the best 10
        # by Sharpe (ties by runIx) are the rows that carry a curve.
        ranked = sorted(
            (r for r in final["leaderboard"] if not r["aborted"] and r["trades"] > 0),
            key=lambda r: (-r["sharpe"], r["runIx"]),
        )
        with_curve = {r["runIx"] for r in final["leaderboard"] if r.get("equityCurve")}
        assert with_curve == {r["runIx"] for r in ranked[:10]}
    finally:
        server.stop()
