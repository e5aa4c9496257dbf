"""Black-box: the ``{type}`` path parameter is documented in /v1/openapi.json (issue 27), and
documenting it changed nothing on the wire."""

from __future__ import annotations

import httpx

from tests.support.server import LiveServer

TYPES = ["ticker", "kline", "funding"]


def test_every_type_path_parameter_has_the_enum_and_explains_each_value(
    live_server: LiveServer,
) -> None:
    spec = httpx.get(f"{live_server.base_url}/openapi.json").json()
    documented = []
    for path, operations in spec["paths"].items():
        if "{type}" not in path:
            continue
        for method, operation in operations.items():
            (param,) = [p for p in operation["parameters"] if p["name"] == "type"]
            assert param["in"] == "path"
            assert param["schema"]["enum"] == TYPES, (method, path)
            assert param["schema"]["type"] == "string"
            for value in TYPES:
                assert f"`{value}`" in param["description"], (method, path, value)
            assert "execute and sweeps answer 400" in param["description"]
            documented.append((method, path))
    routes = {path for _, path in documented}
    assert "/v1/backtest/{exchangeId}/{type}/prepare" in routes
    assert "/v1/backtest/{exchangeId}/{type}/execute" in routes
    assert "/v1/backtest/{exchangeId}/{type}/executeSweep/{requestId}" in routes
    assert len(documented) == 12  # 7 backtest routes, 5 sweep routes


def test_an_unknown_type_is_still_the_services_404_not_a_validation_422(
    live_server: LiveServer,
) -> None:
    token = live_server.token(live_server.create_key("openapi-type"))
    response = httpx.post(
        f"{live_server.base_url}/backtest/sim/tickers/prepare",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "instrument": "BTC/USDT",
            "from": "2026-01-01T00:00:00Z",
            "to": "2026-01-01T01:00:00Z",
        },
    )
    assert response.status_code == 404
    body = response.json()
    assert body["code"] == 404
    assert body["message"] == "no data type 'tickers'; types are ticker, kline, funding"
