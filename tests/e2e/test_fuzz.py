"""Black-box API fuzzing: schemathesis generates requests from the service's own OpenAPI
document (every operation, positive and negative data) and sends them to a live server with a
valid token. No answer may be a 5xx, and every JSON error is the ``{code, message}`` envelope.

CI runs a bounded number of cases per operation (``FUZZ_EXAMPLES``); the benchmark-sized run is
``st run http://HOST:PORT/v1/openapi.json -H 'Authorization: Bearer <token>' -c
not_a_server_error -n 200`` (docs/deployment.md has the figures).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from backtestd.api.app import create_app
from backtestd.settings import Settings
from tests.support.server import LiveServer

FUZZ_EXAMPLES = int(os.environ.get("BACKTESTD_FUZZ_EXAMPLES", "8"))
schema = schemathesis.openapi.from_dict(create_app(Settings()).openapi())


@pytest.fixture(scope="module")
def fuzz_token(live_server: LiveServer) -> str:
    return live_server.token(live_server.create_key("fuzz-user", tier="elite"))


@schema.parametrize()
@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_request_gets_a_server_error(
    case: Any, live_server: LiveServer, fuzz_token: str
) -> None:
    base = live_server.base_url.removesuffix("/v1")
    response = case.call(
        base_url=base, headers={"Authorization": f"Bearer {fuzz_token}"}, timeout=30
    )
    assert response.status_code < 500, (case.method, case.formatted_path, response.text[:500])
    content_type = "".join(response.headers.get("content-type", []))
    if response.status_code >= 400 and content_type.startswith("application/json"):
        body = response.json()
        assert isinstance(body, dict), body
        assert "message" in body, body
        assert "code" in body, body
