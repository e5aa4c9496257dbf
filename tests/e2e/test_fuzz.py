"""Black-box API fuzzing: schemathesis generates requests from the service's own OpenAPI
document (every operation, positive and negative data) and sends them to a live server with a
valid token. No answer may be a 5xx, and every JSON error is the ``{code, message}`` envelope.

CI runs a bounded number of cases per operation (``BACKTESTD_FUZZ_EXAMPLES``, 8); the
benchmark-sized run applies the same oracle (``tests/support/fuzz_checks.py``) from the CLI,
from the repository root::

    SCHEMATHESIS_HOOKS=tests.support.fuzz_checks PYTHONPATH=. .venv/bin/st run \
        http://HOST:PORT/v1/openapi.json -H 'Authorization: Bearer <token>' \
        -c not_a_server_error,error_envelope -n 150 --request-timeout 30

(docs/deployment.md has the command's figures).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from backtestd.api.app import create_app
from backtestd.settings import Settings
from tests.support.fuzz_checks import assert_error_envelope
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
    assert_error_envelope(
        response.status_code,
        response.headers,
        response.content,
        f"{case.method} {case.formatted_path}",
    )
