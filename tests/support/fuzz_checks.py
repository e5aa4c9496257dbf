"""The fuzzing oracle, shared by ``tests/e2e/test_fuzz.py`` and the benchmark-sized CLI run.

No answer may be a 5xx, and every JSON error must be the ``{code, message}`` envelope. Loaded
by schemathesis' CLI as a hooks module, it registers the check ``error_envelope``::

    SCHEMATHESIS_HOOKS=tests.support.fuzz_checks st run URL -c not_a_server_error,error_envelope
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import schemathesis


def assert_error_envelope(
    status: int, headers: Mapping[str, Sequence[str] | str], content: bytes, where: str
) -> None:
    """Fail unless the answer is below 500 and, when a JSON error, carries code and message."""
    assert status < 500, (where, status, content[:500])
    kind = headers.get("content-type") or headers.get("Content-Type") or ""
    content_type = kind if isinstance(kind, str) else "".join(kind)
    if status >= 400 and content_type.startswith("application/json"):
        body = json.loads(content)
        assert isinstance(body, dict), (where, body)
        assert "code" in body, (where, body)
        assert "message" in body, (where, body)


@schemathesis.check
def error_envelope(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every error is the ``{code, message}`` envelope; no 5xx."""
    assert_error_envelope(
        response.status_code,
        response.headers,
        response.content,
        f"{case.method} {case.formatted_path}",
    )
    return None
