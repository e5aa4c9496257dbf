"""Polling helpers for the backtest black-box tests."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from qtsurfer_sdk import AuthenticatedSession

from backtestd.api.schemas.backtests import BacktestJobResult
from tests.support.polling import Pauses
from tests.support.server import LiveServer

TERMINAL = ("Completed", "Failed", "Aborted")


def recent_range(hours: int, end_hours_ago: int = 3) -> tuple[str, str]:
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(
        hours=end_hours_ago
    )
    start = end - timedelta(hours=hours)
    return start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")


def wait_prepare(
    session: AuthenticatedSession, exchange: str, type_: str, job_id: str, timeout: float = 300
) -> Any:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        state = session.get_prepare_status(exchange_id=exchange, type_=type_, job_id=job_id)
        if state.status.value in TERMINAL:
            return state
        pauses.sleep()
    raise AssertionError(f"prepare {job_id} not finished after {timeout}s")


def wait_prepare_half_done(
    session: AuthenticatedSession, exchange: str, type_: str, job_id: str, timeout: float = 120
) -> Any:
    """The prepare's state once it is seen running with some hours done, polled every 0.05 s (a
    test that interrupts a prepare needs it half done; 8 days of hours once completed between
    two 0.2 s polls); its last state if that was never seen, for the caller to assert on."""
    deadline = time.monotonic() + timeout
    while True:
        state = session.get_prepare_status(exchange_id=exchange, type_=type_, job_id=job_id)
        if state.status.value == "Started" and state.completed > 0:
            return state
        if state.status.value in TERMINAL or time.monotonic() >= deadline:
            return state
        time.sleep(0.05)


def wait_result(
    session: AuthenticatedSession, exchange: str, type_: str, job_id: str, timeout: float = 300
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        response = session.get_backtest_result(exchange_id=exchange, type_=type_, job_id=job_id)
        assert response.status_code in (200, 202), response.text
        if response.status_code == 200:
            body: dict[str, Any] = response.json()
            # every 200 body is what /v1/openapi.json documents (extra keys are refused)
            BacktestJobResult.model_validate(body)
            if body["state"]["status"] in TERMINAL:
                return body
        else:
            assert response.json() == {}
        pauses.sleep()
    raise AssertionError(f"execute {job_id} not finished after {timeout}s")


def call(
    server: LiveServer, session: AuthenticatedSession, method: str, path: str, **kwargs: Any
) -> httpx.Response:
    """A raw HTTP call with the session's bearer token (for statuses the SDK hides)."""
    headers = {"Authorization": f"Bearer {session.token.access_token}"}  # type: ignore[union-attr]
    return httpx.request(method, f"{server.base_url}{path}", headers=headers, timeout=60, **kwargs)
