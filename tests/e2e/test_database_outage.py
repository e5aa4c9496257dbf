"""Drill (issue 12.4): PostgreSQL goes away under load and comes back.

The service reaches its PostgreSQL database through a TCP proxy the test can cut: cutting it
resets every open connection and refuses new ones, which is what a restarting database server
looks like from the service. While it is down, requests that need the database must fail
cleanly with 503 ``{code, message}`` and ``Retry-After`` (never a 500, never a stack trace);
once it is back the service recovers by itself, and no job is left stuck: a prepare submitted
just before the outage still completes, once.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from tests.e2e.backtest_helpers import recent_range
from tests.support.server import LiveServer
from tests.support.services import temporary_postgres_database
from tests.support.tcp_proxy import TcpProxy

pytestmark = pytest.mark.postgres

RECOVERY_S = 5


@pytest.fixture(scope="module")
def outage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, TcpProxy]]:
    with temporary_postgres_database() as url:
        parts = urlsplit(url)
        proxy = TcpProxy(parts.hostname or "127.0.0.1", parts.port or 5432)
        proxy.start()
        netloc = parts.netloc.rsplit("@", 1)
        user = f"{netloc[0]}@" if len(netloc) == 2 else ""
        proxied = urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{proxy.port}"))
        server = LiveServer(
            Path(tmp_path_factory.mktemp("outage")),
            database_url=proxied,
            extra_env={
                "BACKTESTD_DASK_WORKERS": "1",
                "BACKTESTD_JOB_RECOVERY_SECONDS": str(RECOVERY_S),
            },
        )
        server.start()
        try:
            yield server, proxy
        finally:
            if not proxy.running:
                proxy.start()
            server.stop()
            proxy.cut()


def _get(server: LiveServer, token: str, path: str, **kwargs: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    return httpx.request(
        kwargs.pop("method", "GET"),
        f"{server.base_url}{path}",
        headers=headers,
        timeout=60,
        **kwargs,
    )


def _prepare(server: LiveServer, token: str, hours_ago: int) -> httpx.Response:
    start, end = recent_range(2, end_hours_ago=hours_ago)
    return _get(
        server,
        token,
        "/backtest/sim/ticker/prepare",
        method="POST",
        json={"instrument": "BTC/USDT", "from": start, "to": end},
    )


def _status(server: LiveServer, token: str, job_id: str) -> str | None:
    response = _get(server, token, f"/backtest/sim/ticker/prepare/{job_id}")
    return str(response.json()["status"]) if response.status_code == 200 else None


def test_the_database_going_away_gives_503s_and_the_service_recovers_by_itself(
    outage: tuple[LiveServer, TcpProxy], capsys: pytest.CaptureFixture[str]
) -> None:
    server, proxy = outage
    token = server.token(server.create_key("outage-user", tier="pro"))
    assert _get(server, token, "/strategies").status_code == 200
    before = _prepare(server, token, hours_ago=30)
    assert before.status_code == 202, before.text
    queued_before = before.json()["jobId"]

    # Load while the database disappears: every answer is a success or a clean 503.
    answers: list[httpx.Response] = []
    stop = threading.Event()

    def load() -> None:
        paths = [
            "/account",
            "/account/usage",
            "/strategies",
            f"/backtest/sim/ticker/prepare/{queued_before}",
        ]
        while not stop.is_set():
            for path in paths:
                try:
                    answers.append(_get(server, token, path))
                except httpx.HTTPError:
                    pass

    threads = [threading.Thread(target=load) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    proxy.cut()
    down_at = time.monotonic()
    time.sleep(4.0)
    during = _get(server, token, "/strategies")
    refused_prepare = _prepare(server, token, hours_ago=40)
    proxy.start()
    up_at = time.monotonic()
    time.sleep(1.0)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    assert during.status_code == 503, during.text
    body = during.json()
    assert body["code"] == 503
    assert "database" in body["message"]
    assert body["reason"] == "SERVICE_UNAVAILABLE"
    assert body["retryable"] is True
    assert during.headers["Retry-After"] == "5"
    assert refused_prepare.status_code == 503, refused_prepare.text
    statuses = {r.status_code for r in answers}
    assert statuses <= {200, 503}, statuses
    assert 503 in statuses
    for answer in answers:
        if answer.status_code == 503:
            assert set(answer.json()) >= {"code", "message"}

    # Back by itself: the next requests succeed without a restart.
    deadline = time.monotonic() + 30
    while _get(server, token, "/strategies").status_code != 200:
        assert time.monotonic() < deadline, "the service did not recover within 30 s"
        time.sleep(0.5)
    recovered_in = time.monotonic() - up_at
    after = _prepare(server, token, hours_ago=50)
    assert after.status_code == 202, after.text

    # No stuck job: the one queued before the outage and the one after both complete.
    deadline = time.monotonic() + 180
    jobs = {queued_before: None, after.json()["jobId"]: None}
    while any(state != "Completed" for state in jobs.values()):
        assert time.monotonic() < deadline, f"jobs not completed: {jobs}"
        for job_id in jobs:
            jobs[job_id] = _status(server, token, job_id)
        assert "Failed" not in jobs.values(), jobs
        time.sleep(0.5)
    with capsys.disabled():  # the drill's figures, for the closing note
        sys.stdout.write(
            f"\noutage {up_at - down_at:.1f} s, {len(answers)} answers under load "
            f"({sum(r.status_code == 503 for r in answers)} 503s), recovered {recovered_in:.1f} s "
            "after the database returned\n"
        )
