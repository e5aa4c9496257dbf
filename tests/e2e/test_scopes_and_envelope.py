"""Black-box: API-key scopes, the richer error envelope, plan-gated cadences and the additive
fields the newest clients read (wire reference §7)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.backtest_helpers import recent_range
from tests.support.server import LiveServer
from tests.support.strategies import source


def _token(server: LiveServer, *args: str) -> str:
    key = server.cli("apikey", "create", *args).stdout.strip().splitlines()[-1]
    return server.token(key)


def _get(server: LiveServer, token: str, path: str) -> httpx.Response:
    return httpx.get(f"{server.base_url}{path}", headers={"Authorization": f"Bearer {token}"})


def _post(server: LiveServer, token: str, path: str, **kwargs: object) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    return httpx.post(f"{server.base_url}{path}", headers=headers, timeout=60, **kwargs)  # type: ignore[arg-type]


def test_scopes_are_reported_and_every_endpoint_checks_its_own(live_server: LiveServer) -> None:
    token = _token(live_server, "--user", "scoped", "--scope", "backtests:read,execute")
    minted = httpx.post(
        f"{live_server.base_url}/auth/token",
        headers={
            "X-API-Key": live_server.cli(
                "apikey", "create", "--user", "scoped2", "--scope", "strategies:read"
            )
            .stdout.strip()
            .splitlines()[-1]
        },
    ).json()
    assert minted["scopes"] == {"strategies": ["read"]}
    account = _get(live_server, token, "/account").json()
    assert account["scopes"] == {"backtests": ["read", "execute"]}
    refused = _post(live_server, token, "/strategy", content=source("ema_cross.java"))
    assert refused.status_code == 403
    assert refused.json() == {
        "code": "insufficient_scope",
        "message": refused.json()["message"],
        "required": "strategies:write",
    }
    assert "--scope strategies:write" in refused.json()["message"]
    listing = _get(live_server, token, "/strategies")
    assert listing.status_code == 403
    assert listing.json()["required"] == "strategies:read"
    start, end = recent_range(1)
    prepare = _post(
        live_server,
        token,
        "/backtest/sim/ticker/prepare",
        json={"instrument": "BTC/USDT", "from": start, "to": end},
    )
    assert prepare.status_code == 403
    assert prepare.json()["required"] == "backtests:write"
    assert _get(live_server, token, "/backtest/sim/ticker/prepare/nope").status_code == 404


def test_default_keys_have_every_scope(live_server: LiveServer) -> None:
    token = _token(live_server, "--user", "unscoped")
    assert _get(live_server, token, "/account").json()["scopes"] == {
        "strategies": ["read", "write"],
        "backtests": ["read", "write", "execute"],
        "datasets": ["read", "write"],
        "live": ["read", "write"],
    }


def test_a_key_without_any_scope_cannot_get_a_token(live_server: LiveServer) -> None:
    key = (
        live_server.cli("apikey", "create", "--user", "nothing", "--scope", "none")
        .stdout.strip()
        .splitlines()[-1]
    )
    response = httpx.post(f"{live_server.base_url}/auth/token", headers={"X-API-Key": key})
    assert response.status_code == 403
    assert response.json()["code"] == "apikey_without_scopes"


def test_an_unknown_scope_is_refused_by_the_cli(live_server: LiveServer) -> None:
    result = live_server.cli(
        "apikey", "create", "--user", "x", "--scope", "sweeps:run", check=False
    )
    assert result.returncode != 0
    assert "known: strategies:read|write" in result.stderr


def test_errors_carry_reason_retryable_and_next(live_server: LiveServer) -> None:
    token = _token(live_server, "--user", "envelope")
    start, end = recent_range(2)
    bad = _post(
        live_server,
        token,
        "/backtest/sim/kline/prepare",
        json={"instrument": "BTC/USDT", "from": start, "to": "2099-01-01T00:00:00Z"},
    )
    assert bad.status_code == 400
    assert (bad.json()["reason"], bad.json()["retryable"]) == ("RANGE_IN_FUTURE", False)
    old = _post(
        live_server,
        token,
        "/backtest/sim/kline/prepare",
        json={"instrument": "BTC/USDT", "from": "2001-01-01", "to": "2001-01-02"},
    )
    assert old.json()["reason"] == "OUTSIDE_WINDOW"
    accepted = _post(
        live_server,
        token,
        "/backtest/sim/kline/prepare",
        json={"instrument": "BTC/USDT", "from": start, "to": end, "cadence": "1m"},
    )
    assert accepted.status_code == 202
    assert accepted.json()["cadence"] == "1m"
    default = _post(
        live_server,
        token,
        "/backtest/sim/kline/prepare",
        json={"instrument": "BTC/USDT", "from": start, "to": end},
    )
    assert default.json()["cadence"] == "1s"
    job = accepted.json()["jobId"]
    strategy = _post(live_server, token, "/strategy", content=source("sma_kline.java")).json()
    early = _post(
        live_server,
        token,
        "/backtest/sim/kline/execute",
        json={"prepareJobId": job, "strategyId": strategy["strategyId"]},
    )
    if early.status_code == 400:  # still preparing: the envelope says what to call next
        body = early.json()
        assert body["reason"] == "PREPARE_NOT_COMPLETED"
        assert body["retryable"] is True
        assert body["next"] == {"method": "GET", "path": f"/backtest/sim/kline/prepare/{job}"}
    else:
        assert early.status_code == 202


def test_downloads_say_their_timestamp_unit_and_exchanges_their_shape(
    live_server: LiveServer,
) -> None:
    start, _ = recent_range(1)
    hour = start[:13]
    response = httpx.get(f"{live_server.base_url}/exchange/sim/tickers/BTC/USDT?hour={hour}")
    assert response.status_code == 200
    assert response.headers["X-Ts-Unit"] == "millis"
    (sim,) = [e for e in httpx.get(f"{live_server.base_url}/exchanges").json() if e["id"] == "sim"]
    assert (sim["venueType"], sim["segments"], sim["liveSegments"]) == (
        "cex",
        ["spot", "futures"],
        ["spot"],
    )
    futures = httpx.get(f"{live_server.base_url}/exchange/sim/futures/instruments").json()
    assert futures["meta"]["venueType"] == "cex"
    perp = futures["data"][0]
    assert perp["symbol"] == perp["id"]
    assert perp["settle"] == "USDT"


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(
        tmp_path_factory.mktemp("planned"),
        extra_env={
            "BACKTESTD_TIERS__FREE__CADENCES": '["1m", "1h"]',
            "BACKTESTD_TIERS__FREE__DEFAULT_CADENCE": "1h",
            "BACKTESTD_UPGRADE_URL": "https://example.test/upgrade",
            "BACKTESTD_TIERS__BASIC__MAX_TOTAL_STORAGE_BYTES": "1000",
        },
    )
    server.start()
    yield server
    server.stop()


def test_a_cadence_outside_the_tier_is_402_and_the_default_is_the_tiers(
    planned: LiveServer,
) -> None:
    token = _token(planned, "--user", "free-user", "--tier", "free")
    start, end = recent_range(2)
    body = {"instrument": "BTC/USDT", "from": start, "to": end}
    refused = _post(planned, token, "/backtest/sim/kline/prepare", json={**body, "cadence": "1s"})
    assert refused.status_code == 402
    assert refused.json()["reason"] == "PLAN_REQUIRED"
    assert refused.json()["retryable"] is False
    assert refused.json()["upgradeUrl"] == "https://example.test/upgrade"
    assert "1m, 1h" in refused.json()["message"]
    default = _post(planned, token, "/backtest/sim/kline/prepare", json=body)
    assert default.status_code == 202
    assert default.json()["cadence"] == "1h"
    pro = _token(planned, "--user", "pro-user", "--tier", "pro")
    assert (
        _post(
            planned, pro, "/backtest/sim/kline/prepare", json={**body, "cadence": "1s"}
        ).status_code
        == 202
    )


def test_the_storage_pool_cap_refuses_a_registration_and_stores_nothing(
    planned: LiveServer,
) -> None:
    token = _token(planned, "--user", "tiny-pool", "--tier", "basic")
    refused = _post(planned, token, "/strategy", content=source("ema_cross.java"))
    assert refused.status_code == 413
    assert refused.json()["reason"] == "STORAGE_FULL"
    assert "maxTotalStorageBytes is 1,000" in refused.json()["message"]
    assert _get(planned, token, "/strategies").json()["strategies"] == []
    assert _get(planned, token, "/account/usage").json()["storageBytesUsed"] == 0
    roomy = _token(planned, "--user", "roomy-pool", "--tier", "pro")
    assert _post(planned, roomy, "/strategy", content=source("ema_cross.java")).status_code == 200
