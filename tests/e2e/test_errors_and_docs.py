"""Black-box: error envelopes, body caps, no redirects, OpenAPI and first-start hints."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.support.ports import is_free
from tests.support.server import LiveServer


def test_unknown_route_and_wrong_method_are_json_errors(live_server: LiveServer) -> None:
    missing = httpx.get(f"{live_server.base_url}/no/such/route")
    assert missing.status_code == 404
    assert missing.json()["code"] == 404
    assert "/v1/no/such/route" in missing.json()["message"]
    wrong = httpx.delete(f"{live_server.base_url}/exchanges")
    assert wrong.status_code == 405
    assert wrong.json() == {"code": 405, "message": wrong.json()["message"]}
    assert "DELETE" in wrong.json()["message"]


def test_trailing_slash_is_not_redirected(live_server: LiveServer) -> None:
    response = httpx.get(f"{live_server.base_url}/exchanges/", follow_redirects=False)
    assert response.status_code == 404
    assert response.json()["code"] == 404


def test_strategy_body_over_32_kib_gives_413_naming_the_cap(live_server: LiveServer) -> None:
    token = live_server.token(live_server.create_key("big-body"))
    response = httpx.post(
        f"{live_server.base_url}/strategy",
        content=b"x" * 32_769,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "text/plain"},
    )
    assert response.status_code == 413
    assert response.json()["code"] == 413
    assert "32768" in response.json()["message"]


def test_chunked_body_over_cap_gives_413(live_server: LiveServer) -> None:
    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(40):
            yield b"y" * 1024

    response = httpx.post(f"{live_server.base_url}/strategy", content=chunks())
    assert response.status_code == 413
    assert "32768" in response.json()["message"]


def test_every_body_reading_endpoint_is_capped(live_server: LiveServer) -> None:
    response = httpx.post(
        f"{live_server.base_url}/auth/token",
        content=b"z" * (1024 * 1024 + 1),
        headers={"X-API-Key": "whatever"},
    )
    assert response.status_code == 413
    assert "1048576" in response.json()["message"]


def test_openapi_uses_wire_names(live_server: LiveServer) -> None:
    spec = httpx.get(f"{live_server.base_url}/openapi.json").json()
    paths = spec["paths"]
    for path in (
        "/v1/auth/token",
        "/v1/account",
        "/v1/account/usage",
        "/v1/exchanges",
        "/v1/exchange/{exchangeId}/instruments",
        "/v1/exchange/{exchangeId}/{segment}/instruments",
        "/v1/exchange/{exchangeId}/tickers/{base}/{quote}",
        "/v1/exchange/{exchangeId}/klines/{base}/{quote}",
    ):
        assert path in paths, path
    schemas = spec["components"]["schemas"]
    assert {"maxExecute", "_links", "userId"} <= set(schemas["Account"]["properties"])
    assert {"access_token", "token_type", "expires_in", "tier"} <= set(
        schemas["AuthTokenResponse"]["properties"]
    )
    assert "volume24h" in schemas["Instrument"]["properties"]
    # the backtest result is described field by field, not as a free-form object
    results = schemas["ExecuteResults"]
    assert {"strategyId", "instrument", "hostName", "iops"} <= set(results["required"])
    assert {"pnlTotal", "sharpeRatio", "equityCurve", "signalsUrl"} <= set(results["properties"])
    assert set(schemas["BacktestJobResult"]["required"]) == {"results", "state"}
    docs = httpx.get(f"{live_server.base_url}/docs")
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()


def test_first_start_prints_how_to_create_a_key(live_server: LiveServer) -> None:
    log = live_server.log_path.read_text()
    assert "No API key exists yet" in log
    assert "backtestd apikey create --user" in log


@pytest.mark.parametrize("bad", ["--tier=platinum", "--expires=yesterday"])
def test_cli_rejects_bad_key_options_clearly(live_server: LiveServer, bad: str) -> None:
    result = live_server.cli("apikey", "create", "--user", "cli-user", bad, check=False)
    assert result.returncode != 0
    assert "error:" in result.stderr
    assert "Traceback" not in result.stderr


def test_api_docs_load_everything_from_the_service_itself(live_server: LiveServer) -> None:
    import re

    origin = live_server.base_url.removesuffix("/v1")
    page = httpx.get(f"{live_server.base_url}/docs").text
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page) + re.findall(
        r"""url: ?["']([^"']+)["']""", page
    )
    assert urls, page
    for url in urls:
        assert not url.startswith(("http://", "https://", "//")), f"off-host asset {url}"
        assert httpx.get(origin + url).status_code == 200, url


def test_openapi_documents_400_not_422_and_versions_both_sides(live_server: LiveServer) -> None:
    spec = httpx.get(f"{live_server.base_url}/openapi.json").json()
    statuses = {s for ops in spec["paths"].values() for op in ops.values() for s in op["responses"]}
    assert "422" not in statuses
    prepare = spec["paths"]["/v1/backtest/{exchangeId}/{type}/prepare"]["post"]
    assert "400" in prepare["responses"]
    assert spec["info"]["x-api-description-version"] == "0.128.20"
    assert spec["info"]["version"] != "0.128.20"  # the project's own version


def test_a_busy_port_is_reported_before_anything_starts(
    live_server: LiveServer, tmp_path: Path
) -> None:
    other = LiveServer(tmp_path / "clash")
    other.env["BACKTESTD_PORT"] = str(live_server.port)
    result = other.cli("serve", check=False)
    assert result.returncode != 0
    assert f"cannot listen on 127.0.0.1:{live_server.port}" in result.stderr
    assert "BACKTESTD_PORT" in result.stderr
    assert not (tmp_path / "clash" / "dask-scratch").exists()


def test_the_port_is_held_from_before_the_dask_cluster_starts(tmp_path: Path) -> None:
    """The Dask scheduler and workers bind ports of their own while the service starts; the API's
    port is bound before them, so none of them (nor anyone else) can take it in between."""
    server = LiveServer(tmp_path / "early")
    server.start_process()
    try:
        deadline = time.monotonic() + 180
        while "Scheduler at:" not in server.log_path.read_text():
            assert server.process is not None
            assert server.process.poll() is None, server.log_path.read_text()
            assert time.monotonic() < deadline, "the Dask scheduler never started"
            time.sleep(0.05)
        assert not is_free(server.port)
        server.wait_until_answering()
    finally:
        server.stop()


def test_unusable_input_is_a_400_naming_the_field_and_the_service_carries_on(
    live_server: LiveServer,
) -> None:
    """A lone surrogate (JSON can spell one, UTF-8 cannot store it), a seed outside what every
    client reads exactly, a trial index past any sweep: each is refused with the field's name,
    where they once reached a 500; the same user's next ordinary request works."""
    token = live_server.token(live_server.create_key("odd-input"))
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    base = live_server.base_url
    surrogate = "\\ud800"  # the six characters of the JSON escape, sent as they are
    attempts = [
        ("/datasets", f'{{"name": "{surrogate}", "instrument": "BTC/USDT"}}', "name"),
        (
            "/backtest/sim/ticker/prepare",
            f'{{"from": "2026-01-01", "to": "2026-01-02", "instrument": "{surrogate}"}}',
            "instrument",
        ),
        (
            "/backtest/sim/ticker/execute",
            f'{{"prepareJobId": "p", "strategyId": "s", "params": {{"fast": "{surrogate}"}}}}',
            "params.fast",
        ),
    ]
    for path, body, field in attempts:
        answer = httpx.post(f"{base}{path}", content=body.encode(), headers=headers)
        assert answer.status_code == 400, (path, answer.text)
        assert answer.json()["code"] == 400
        assert f"{field} holds a lone UTF-16 surrogate" in answer.json()["message"]
    sweep = f"{base}/backtest/sim/ticker/executeSweep/some-prepare"
    for seed in (-1, 2**53):
        body = {"strategyId": "s", "sweep": {"params": {"fast": {"values": [1]}}, "seed": seed}}
        answer = httpx.post(sweep, json=body, headers=headers)
        assert answer.status_code == 400, answer.text
        assert "sweep.seed" in answer.json()["message"]
    curve = httpx.get(f"{sweep}/swp_x/runs/{2**63}/equityCurve", headers=headers)
    assert curve.status_code == 400, curve.text
    assert "runIx" in curve.json()["message"]
    created = httpx.post(
        f"{base}/datasets", json={"name": "fine", "instrument": "BTC/USDT"}, headers=headers
    )
    assert created.status_code in (200, 201), created.text


def test_nul_in_a_path_query_or_body_is_a_400_naming_where_on_both_databases(
    live_server: LiveServer,
) -> None:
    """NUL (``%00``, ``\\u0000``) reached PostgreSQL, which refuses it: a 500 there where SQLite
    answered 404 (found by the fuzz test on ``GET /v1/live/public?cursor=%00``). Now every
    such request is a 400 saying what holds it, on both databases, and the next works."""
    token = live_server.token(live_server.create_key("nul-input"))
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    base = live_server.base_url
    for path, where in [
        ("/live/public?cursor=%00", "query parameter 'cursor'"),
        ("/live?limit=5&cursor=a%00b", "query parameter 'cursor'"),
        ("/strategy/%00", "the path"),
        ("/live/run%00x", "the path"),
    ]:
        answer = httpx.get(f"{base}{path}", headers=headers)
        assert answer.status_code == 400, (path, answer.text)
        assert answer.json()["code"] == 400
        assert answer.json()["message"].startswith(f"{where} holds the NUL character"), path
    body = '{"name": "a\\u0000b", "instrument": "BTC/USDT"}'  # the JSON escape, as sent
    answer = httpx.post(f"{base}/datasets", content=body.encode(), headers=headers)
    assert answer.status_code == 400, answer.text
    assert "name holds the NUL character" in answer.json()["message"]
    assert httpx.get(f"{base}/live/public").status_code == 200
    listed = httpx.get(f"{base}/datasets", headers=headers)
    assert listed.status_code == 200, listed.text
    created = httpx.post(
        f"{base}/datasets", json={"name": "fine", "instrument": "BTC/USDT"}, headers=headers
    )
    assert created.status_code in (200, 201), created.text


def test_an_error_quoting_a_huge_value_stays_short(live_server: LiveServer) -> None:
    """Messages quote what was wrong; a 200,000-character dataset name came back whole (a 200 KB
    error body). Long runs are cut to their start and length."""
    token = live_server.token(live_server.create_key("huge-input"))
    headers = {"Authorization": f"Bearer {token}"}
    name = "x" * 200_000
    answer = httpx.post(
        f"{live_server.base_url}/datasets",
        json={"name": name, "instrument": "BTC/USDT"},
        headers=headers,
    )
    assert answer.status_code == 400, answer.text[:300]
    message = answer.json()["message"]
    assert len(answer.content) < 1_000, message[:300]
    assert message.startswith("'name' must be 1 to 256 characters"), message
    assert "… (200002 characters)" in message, message
