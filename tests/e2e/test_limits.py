"""Black-box: every published limit is enforced, queues are fair, anonymous downloads are
bounded (rate and storage), and signal links come from the public base URL and die with their
strategy. One dedicated server with small limits (docs/limits.md):

* free tier: ``maxRangeDays`` 1;  basic: ``maxTotalStorageBytes`` 50,000 (strategies);
* pro: ``maxTotalStorageBytes`` 20,000 (signals);  elite: defaults (the reference user);
* stored sweep curves: 6 points a trial, 1,200 bytes for everyone together.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

PUBLIC = "http://backtest.public.example:8443"
BASIC_CAP = 50_000
PRO_CAP = 20_000
SIM_CACHE = 600_000
DOWNLOADS_PER_MINUTE = 6
VALIDATION_CPU_S = 2
CURVE_POINTS = 6  # a stored trial curve: at most 6 points, about 220 bytes
CURVES_BUDGET = 1_200  # stored sweep curves of everyone: two sweeps of two such curves, and some

# Emits a signal every second (buy, sell, buy, ...): many signals, a large signals file.
SIGNAL_EVERY_SECOND = """
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

public class EverySecond extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().window("price", WindowTime.s1, new Flip(this, indicators));
    }

    class Flip extends AbstractWindowListener {
        Flip(AbstractTickerStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (store.is("long")) {
                store.unset("long");
                emitSell(indicators.getValue("price"));
            } else {
                store.set("long");
                emitBuy(indicators.getValue("price"));
            }
        }
    }
}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(
        tmp_path_factory.mktemp("limits"),
        extra_env={
            "BACKTESTD_TIERS__FREE__MAX_RANGE_DAYS": "1",
            "BACKTESTD_TIERS__BASIC__MAX_TOTAL_STORAGE_BYTES": str(BASIC_CAP),
            "BACKTESTD_TIERS__PRO__MAX_TOTAL_STORAGE_BYTES": str(PRO_CAP),
            "BACKTESTD_PUBLIC_BASE_URL": PUBLIC,
            "BACKTESTD_SIM_CACHE_MAX_BYTES": str(SIM_CACHE),
            "BACKTESTD_DOWNLOADS_PER_MINUTE": str(DOWNLOADS_PER_MINUTE),
            "BACKTESTD_VALIDATION_CPU_LIMIT_SECONDS": str(VALIDATION_CPU_S),
            "BACKTESTD_DASK_WORKERS": "1",
            "BACKTESTD_SWEEP_CURVE_MAX_POINTS": str(CURVE_POINTS),
            "BACKTESTD_SWEEP_CURVES_MAX_BYTES": str(CURVES_BUDGET),
        },
    )
    live.start()
    yield live
    live.stop()


def _session(server: LiveServer, user: str, tier: str) -> AuthenticatedSession:
    return auth(server.create_key(user, tier=tier), base_url=server.base_url)


def _usage(server: LiveServer, session: AuthenticatedSession) -> dict[str, Any]:
    response = call(server, session, "GET", "/account/usage")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def _raw(
    server: LiveServer, session: AuthenticatedSession, method: str, path: str, **kwargs: Any
) -> httpx.Response:
    """Like ``call`` but with extra headers (content type, a forged Host)."""
    headers = {
        "Authorization": f"Bearer {session.token.access_token}",  # type: ignore[union-attr]
        **kwargs.pop("headers", {}),
    }
    return httpx.request(method, f"{server.base_url}{path}", headers=headers, timeout=120, **kwargs)


def _register(server: LiveServer, session: AuthenticatedSession, text: str) -> httpx.Response:
    return _raw(
        server,
        session,
        "POST",
        "/strategy",
        content=text.encode(),
        headers={"Content-Type": "text/plain"},
    )


def _local(server: LiveServer, url: str) -> str:
    """A signed link is built for the public origin; reach the same path on the test server."""
    assert url.startswith(f"{PUBLIC}/v1/files/"), url
    return url.replace(PUBLIC, f"http://127.0.0.1:{server.port}", 1)


# -- maxRangeDays ------------------------------------------------------------------------


def test_max_range_days_bounds_managed_prepares(server: LiveServer) -> None:
    session = _session(server, "range-free", "free")
    assert _usage(server, session)["storageBytesUsed"] == 0
    account = call(server, session, "GET", "/account").json()
    assert account["maxRangeDays"] == 1  # what is published is what is enforced
    start, end = recent_range(25)
    over = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/prepare",
        json={"instrument": "BTC/USDT", "from": start, "to": end},
    )
    assert over.status_code == 400
    assert over.json()["code"] == 400
    message = over.json()["message"]
    assert "1.04167 days" in message  # 25 hours
    assert "maxRangeDays of 1" in message
    assert "free tier" in message
    start, end = recent_range(24)  # exactly one day is allowed
    exact = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/prepare",
        json={"instrument": "BTC/USDT", "from": start, "to": end},
    )
    assert exact.status_code == 202, exact.text
    elite = _session(server, "range-elite", "elite")
    start, end = recent_range(48)
    longer = elite.prepare(
        exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
    )
    assert longer.job_id  # the same range is fine on a tier that allows it


# -- maxTotalStorageBytes: strategies ----------------------------------------------------


def _padded(n: int) -> str:
    """ema_cross with a distinct default (a distinct strategy) and ~15 KB of comment."""
    text = source("ema_cross.java").replace('defaultValue = "21"', f'defaultValue = "{n}"')
    return text + "\n// " + "p" * 15_000 + "\n"


def _stored_size(server: LiveServer, text: str) -> int:
    """The bytes a registration adds, measured on a user without a tight cap."""
    reference = _session(server, f"size-{abs(hash(text)) % 10**8}", "elite")
    before = _usage(server, reference)["strategyBytesUsed"]
    assert _register(server, reference, text).status_code == 200
    return int(_usage(server, reference)["strategyBytesUsed"]) - int(before)


def test_storage_cap_refuses_a_strategy_that_does_not_fit_and_stores_nothing(
    server: LiveServer,
) -> None:
    session = _session(server, "storage-basic", "basic")
    sizes = [_stored_size(server, _padded(n)) for n in (40, 41, 42)]
    assert sizes[0] + sizes[1] <= BASIC_CAP < sum(sizes)  # the premise, measured independently
    ids = []
    for n in (40, 41):
        response = _register(server, session, _padded(n))
        assert response.status_code == 200, response.text
        ids.append(response.json()["strategyId"])
    used = _usage(server, session)
    assert used["strategyBytesUsed"] == sizes[0] + sizes[1]
    refused = _register(server, session, _padded(42))
    assert refused.status_code == 413
    body = refused.json()
    assert body["code"] == 413
    assert "maxTotalStorageBytes" in body["message"]
    assert f"{BASIC_CAP:,}" in body["message"]
    assert "nothing was stored" in body["message"]
    assert _usage(server, session) == used  # nothing counted
    listed = call(server, session, "GET", "/strategies").json()
    assert sorted(s["strategyId"] for s in listed["strategies"]) == sorted(ids)
    # Deleting one frees its bytes: the third now fits.
    assert call(server, session, "DELETE", f"/strategy/{ids[0]}").status_code == 200
    accepted = _register(server, session, _padded(42))
    assert accepted.status_code == 200, accepted.text
    assert _usage(server, session)["strategyBytesUsed"] == sizes[1] + sizes[2]


# -- maxTotalStorageBytes: stored signals; signal links ---------------------------------


@pytest.fixture(scope="module")
def six_hours(server: LiveServer) -> tuple[str, str]:
    return recent_range(6)


def _prepare(session: AuthenticatedSession, span: tuple[str, str]) -> str:
    job = session.prepare(
        exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=span[0], to=span[1]
    )
    assert wait_prepare(session, "sim", "ticker", job.job_id).status.value == "Completed"
    return str(job.job_id)


def _execute(
    server: LiveServer, session: AuthenticatedSession, prepare: str, strategy: str
) -> dict[str, Any]:
    response = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/execute",
        json={"prepareJobId": prepare, "strategyId": strategy, "storeSignals": True},
    )
    assert response.status_code == 202, response.text
    return wait_result(session, "sim", "ticker", response.json()["jobId"])


def test_signals_over_the_cap_are_not_stored_and_the_result_says_why(
    server: LiveServer, six_hours: tuple[str, str]
) -> None:
    pro = _session(server, "signals-pro", "pro")
    strategy = pro.compile_strategy(SIGNAL_EVERY_SECOND).strategy_id
    before = _usage(server, pro)
    body = _execute(server, pro, _prepare(pro, six_hours), strategy)
    assert body["state"]["status"] == "Completed", body
    results = body["results"]
    assert results["signalsUpload"] == "Failed", results
    assert "maxTotalStorageBytes" in results["signalsUploadReason"]
    assert f"{PRO_CAP:,}" in results["signalsUploadReason"]
    assert "signalsUrl" not in results
    assert results["signalCount"] > 100
    after = _usage(server, pro)
    assert after == before  # nothing counted
    assert not list((server.data_dir / "objects" / "signals").glob("signals-pro/*"))
    # Independently: the same signals stored for a user without a tight cap take more room
    # than the pro user had left.
    elite = _session(server, "signals-elite", "elite")
    reference = elite.compile_strategy(SIGNAL_EVERY_SECOND).strategy_id
    stored = _execute(server, elite, _prepare(elite, six_hours), reference)
    assert stored["results"]["signalsUpload"] == "Done"
    assert stored["results"]["signalCount"] == results["signalCount"]
    signal_bytes = _usage(server, elite)["signalBytesUsed"]
    assert before["storageBytesUsed"] + signal_bytes > PRO_CAP


def test_signal_links_use_the_public_base_url_and_are_revoked_with_their_strategy(
    server: LiveServer, six_hours: tuple[str, str]
) -> None:
    session = _session(server, "links", "elite")
    strategy = session.compile_strategy(source("ema_cross.java")).strategy_id
    body = _execute(server, session, _prepare(session, six_hours), strategy)
    assert body["results"]["signalsUpload"] == "Done", body
    url = body["results"]["signalsUrl"]
    # A forged Host header does not change the link.
    path = f"/backtest/sim/ticker/execute/{body['results']['signalsId']}"
    forged = _raw(server, session, "GET", path, headers={"Host": "attacker.example"})
    assert forged.status_code == 200
    assert forged.json()["results"]["signalsUrl"].startswith(f"{PUBLIC}/v1/files/")
    assert httpx.get(_local(server, url)).status_code == 200
    assert _usage(server, session)["signalBytesUsed"] > 0
    assert call(server, session, "DELETE", f"/strategy/{strategy}").status_code == 200
    revoked = httpx.get(_local(server, url))
    assert revoked.status_code == 404
    assert revoked.json()["code"] == 404
    assert _usage(server, session)["signalBytesUsed"] == 0
    again = call(server, session, "GET", path).json()
    assert "signalsUrl" not in again["results"]


# -- fairness ----------------------------------------------------------------------------


def _burner(n: int) -> str:
    return source("loops_forever.java").replace("spins++", f"spins += {n}")


def _verdict(session: AuthenticatedSession, strategy_id: str, timeout: float = 300) -> Any:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        state = session.get_strategy(strategy_id)
        if state.validation.value in ("passed", "failed"):
            return state
        pauses.sleep()
    raise AssertionError(f"validation of {strategy_id} did not finish")


def _download(server: LiveServer, hour: datetime, client: str) -> httpx.Response:
    return httpx.get(
        f"{server.base_url}/exchange/sim/tickers/BTC/USDT",
        params={"hour": f"{hour:%Y-%m-%dT%H}"},
        headers={"X-Forwarded-For": client},  # the test client talks through loopback
        timeout=60,
    )


def _hour(back: int) -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=back)


def test_anonymous_downloads_are_rate_limited_per_client_address(server: LiveServer) -> None:
    statuses = [
        _download(server, _hour(100 + i), "198.51.100.7").status_code
        for i in range(DOWNLOADS_PER_MINUTE)
    ]
    assert statuses == [200] * DOWNLOADS_PER_MINUTE
    refused = _download(server, _hour(100), "198.51.100.7")
    assert refused.status_code == 429
    assert refused.json()["code"] == 429
    assert "198.51.100.7" in refused.json()["message"]
    retry = int(refused.headers["Retry-After"])
    assert 1 <= retry <= 60 // DOWNLOADS_PER_MINUTE  # one token every 10 s
    assert _download(server, _hour(100), "198.51.100.8").status_code == 200  # another address


def test_generated_hours_stay_within_the_cache_budget(server: LiveServer) -> None:
    sim_dir = server.data_dir / "objects" / "marketdata" / "sim"
    sizes = []
    for i in range(24):
        response = _download(server, _hour(300 + i), f"192.0.2.{i}")  # one address per hour
        assert response.status_code == 200
        sizes.append(len(response.content))
        stored = sum(p.stat().st_size for p in sim_dir.rglob("*.lastra"))
        assert stored <= SIM_CACHE
    assert sum(sizes) > SIM_CACHE  # the downloads alone would have exceeded the budget
    first = _download(server, _hour(300), "192.0.2.200")  # evicted, regenerated identically
    assert first.status_code == 200
    assert len(first.content) == sizes[0]
    log = server.log_path.read_text()
    assert log.count(f"generated sim BTC/USDT tickers {_hour(300):%Y-%m-%dT%H}") == 2
    assert "generated-hour cache over" in log


def test_an_impossible_hour_is_400_or_404_not_500(server: LiveServer) -> None:
    """Before the epoch: 400; the far future is well formed and not yet available: 404."""
    for hour, status in (("9999-12-31T23", 404), ("1969-12-31T23", 400)):
        response = httpx.get(
            f"{server.base_url}/exchange/sim/klines/BTC/USDT",
            params={"hour": hour},
            headers={"X-Forwarded-For": "192.0.2.250"},
        )
        assert response.status_code == status, response.text
        assert response.json()["code"] == status
        message = response.json()["message"]
        assert "out of range" in message or "not yet available" in message


# -- stored sweep curves are a bounded, fair, least-recently-read cache -------------------


def _sweep(
    server: LiveServer, session: AuthenticatedSession, prepare: str, strategy: str, floor: int
) -> str:
    """A finished sweep of two trials, each keeping its curve (``minTradeFloor`` only makes
    the sweep another one: it ranks, it stores nothing)."""
    path = f"/backtest/sim/ticker/executeSweep/{prepare}"
    body = {
        "strategyId": strategy,
        "sweep": {"params": {"fast": {"values": [3, 5]}}},
        "minTradeFloor": floor,
    }
    accepted = call(server, session, "POST", path, json=body)
    assert accepted.status_code == 202, accepted.text
    sweep_id = str(accepted.json()["sweepId"])
    deadline = time.monotonic() + 180
    while (result := call(server, session, "GET", f"{path}/{sweep_id}").json())[
        "status"
    ] == "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.3)
    assert result["status"] == "COMPLETED", result
    return sweep_id


def _curve(
    server: LiveServer, session: AuthenticatedSession, prepare: str, sweep: str, run_ix: int
) -> httpx.Response:
    path = f"/backtest/sim/ticker/executeSweep/{prepare}/{sweep}/runs/{run_ix}/equityCurve"
    return call(server, session, "GET", path)


def _stored_bytes(curve: dict[str, Any]) -> int:
    """About what the server stores for a served curve (its points as JSON numbers)."""
    meta = curve["meta"]
    stored = {
        "ts": [p["timestamp"] for p in curve["points"]],
        "eq": [p["equity"] for p in curve["points"]],
        "full_points": meta["inputPointCount"] if meta["resampled"] else None,
    }
    return len(json.dumps(stored, separators=(",", ":")))


def test_an_attackers_sweeps_reclaim_their_own_curves_and_a_victims_idle_ones_stay(
    server: LiveServer,
) -> None:
    """Stored curves of all sweeps share ``BACKTESTD_SWEEP_CURVES_MAX_BYTES``: an attacker
    running sweep after sweep loses its own least recently read curves, not the victim's
    (older and never read again); a reclaimed curve answers 404 saying so and how to get it
    again, and doing what it says gives the full curve."""
    span = recent_range(1)
    victim = _session(server, "curves-victim", "pro")
    victim_prepare = _prepare(victim, span)
    victim_strategy = str(victim.compile_strategy(source("ema_cross.java")).strategy_id)
    victim_sweep = _sweep(server, victim, victim_prepare, victim_strategy, 30)
    kept = [_curve(server, victim, victim_prepare, victim_sweep, ix) for ix in (0, 1)]
    assert [r.status_code for r in kept] == [200, 200]
    size = sum(_stored_bytes(r.json()) for r in kept)
    # What the test needs: the victim within a fair share of two users (half the budget), and
    # the victim's plus four attacker sweeps of the same size over the budget.
    assert CURVES_BUDGET / 5 < size <= CURVES_BUDGET / 2, size

    attacker = _session(server, "curves-attacker", "free")
    prepare = _prepare(attacker, span)
    strategy = str(attacker.compile_strategy(source("ema_cross.java")).strategy_id)
    first = _sweep(server, attacker, prepare, strategy, 30)
    before = _curve(server, attacker, prepare, first, 1).json()
    attacks = [first] + [_sweep(server, attacker, prepare, strategy, 31 + n) for n in range(3)]

    after = [_curve(server, victim, victim_prepare, victim_sweep, ix) for ix in (0, 1)]
    assert [r.json() for r in after] == [r.json() for r in kept]
    assert [_curve(server, attacker, prepare, attacks[-1], ix).status_code for ix in (0, 1)] == [
        200,
        200,
    ]
    gone = _curve(server, attacker, prepare, first, 1)
    assert gone.status_code == 404, gone.text
    message = gone.json()["message"]
    assert f"the equity curve of run 1 of sweep {first} was reclaimed" in message, message
    board = call(server, attacker, "GET", f"/backtest/sim/ticker/executeSweep/{prepare}/{first}")
    rows = board.json()["leaderboard"]
    assert sorted(r["runIx"] for r in rows) == [0, 1]  # rows and metrics stay
    assert all("equityCurve" not in r and r["trades"] > 0 for r in rows)

    execute = json.loads(message.split(" with ", 1)[1].split(": its result", 1)[0])
    assert "/backtest/sim/ticker/execute with" in message
    rerun = call(server, attacker, "POST", "/backtest/sim/ticker/execute", json=execute)
    assert rerun.status_code == 202, rerun.text
    full = wait_result(attacker, "sim", "ticker", rerun.json()["jobId"])["results"]["equityCurve"]
    assert len(full["points"]) == before["meta"]["inputPointCount"]
    assert (full["points"][0], full["points"][-1]) == (
        before["points"][0],
        before["points"][-1],
    )


# -- a full pool refuses new stores up front (runs last: restarts the server) -----------


def test_a_full_storage_pool_refuses_execute_with_signals_and_registration(
    server: LiveServer, six_hours: tuple[str, str]
) -> None:
    session = _session(server, "pool-full", "pro")
    strategy = session.compile_strategy(source("ema_cross.java")).strategy_id
    prepare = _prepare(session, six_hours)
    used = _usage(server, session)["storageBytesUsed"]
    server.stop()  # the operator lowers the pro cap to exactly what this user already uses
    server.env["BACKTESTD_TIERS__PRO__MAX_TOTAL_STORAGE_BYTES"] = str(used)
    server.start()
    session = _session(server, "pool-full", "pro")
    full = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/execute",
        json={"prepareJobId": prepare, "strategyId": strategy, "storeSignals": True},
    )
    assert full.status_code == 413
    assert "storeSignals" in full.json()["message"]
    assert f"{used:,}" in full.json()["message"]
    without = call(
        server,
        session,
        "POST",
        "/backtest/sim/ticker/execute",
        json={"prepareJobId": prepare, "strategyId": strategy},
    )
    assert without.status_code == 202  # running without storing anything is still allowed
    assert _register(server, session, source("sma_kline.java")).status_code == 413
