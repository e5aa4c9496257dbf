"""Black-box: the job queue cap under a concurrent burst (issue 12.6), on both databases.

A server whose queue holds ``BACKTESTD_MAX_QUEUED_JOBS=4`` jobs and runs one at a time gets
16 distinct prepares from 16 threads released together. Every answer is a 202 or a clean 429
``{code, message, reason: QUEUE_FULL, retryable}`` with ``Retry-After``, never a 5xx; no more
than the cap is accepted; every accepted job completes; and once the queue has drained, the
next submission is accepted again.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.e2e.backtest_helpers import recent_range
from tests.support.server import LiveServer
from tests.support.services import temporary_postgres_database

CAP = 4
BURST = 16
TERMINAL = ("Completed", "Failed", "Aborted")
# The API process's own memory bound (docs/deployment.md, "Memory"): its peak resident set,
# Dask workers and engine hosts (its children) excluded.
API_MEMORY_BOUND_MIB = 512


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def capped(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    env = {
        "BACKTESTD_MAX_QUEUED_JOBS": str(CAP),
        "BACKTESTD_MAX_ACTIVE_PREPARES_PER_USER": str(BURST),
        "BACKTESTD_DASK_WORKERS": "1",
    }
    root = Path(tmp_path_factory.mktemp(f"queue-cap-{request.param}"))
    if request.param == "sqlite":
        server = LiveServer(root, extra_env=env)
        server.start()
        try:
            yield server
        finally:
            server.stop()
        return
    with temporary_postgres_database() as url:
        server = LiveServer(root, database_url=url, extra_env=env)
        server.start()
        try:
            yield server
        finally:
            server.stop()


def _prepare(server: LiveServer, token: str, hours_ago: int) -> httpx.Response:
    start, end = recent_range(12, end_hours_ago=hours_ago)
    return httpx.post(
        f"{server.base_url}/backtest/sim/ticker/prepare",
        headers={"Authorization": f"Bearer {token}"},
        json={"instrument": "BTC/USDT", "from": start, "to": end},
        timeout=60,
    )


def _status(server: LiveServer, token: str, job_id: str) -> str:
    response = httpx.get(
        f"{server.base_url}/backtest/sim/ticker/prepare/{job_id}",
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return str(response.json()["status"])


def _own_peak_rss_mib(server: LiveServer) -> float:
    assert server.process is not None
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def test_a_burst_over_the_queue_cap_gets_clean_429s_and_the_accepted_jobs_complete(
    capped: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    token = capped.token(capped.create_key("queue-burst", tier="elite"))
    start = threading.Barrier(BURST)

    def submit(index: int) -> httpx.Response:
        start.wait(timeout=60)
        return _prepare(capped, token, hours_ago=20 + 13 * index)  # distinct specs, ids

    with ThreadPoolExecutor(BURST) as pool:
        answers = list(pool.map(submit, range(BURST)))

    statuses = sorted(a.status_code for a in answers)
    assert set(statuses) <= {202, 429}, [(a.status_code, a.text) for a in answers]
    accepted = [a.json()["jobId"] for a in answers if a.status_code == 202]
    refused = [a for a in answers if a.status_code == 429]
    assert 1 <= len(accepted) <= CAP, statuses
    assert refused, statuses
    for answer in refused:
        body = answer.json()
        assert body["code"] == 429
        assert f"the job queue is full ({CAP} jobs" in body["message"]
        assert body["reason"] == "QUEUE_FULL"
        assert body["retryable"] is True
        assert int(answer.headers["Retry-After"]) > 0

    deadline = threading.Event()
    timer = threading.Timer(300, deadline.set)
    timer.start()
    try:
        pending = set(accepted)
        while pending:
            assert not deadline.is_set(), f"accepted jobs not finished: {pending}"
            for job_id in list(pending):
                status = _status(capped, token, job_id)
                if status in TERMINAL:
                    assert status == "Completed", (job_id, status)
                    pending.discard(job_id)
            deadline.wait(0.5)
    finally:
        timer.cancel()
    again = _prepare(capped, token, hours_ago=20 + 13 * BURST)
    assert again.status_code == 202, again.text  # the queue drained: room again
    peak = _own_peak_rss_mib(capped)
    with capsys.disabled():
        sys.stdout.write(
            f"\nqueue cap {CAP}, burst {BURST}: {len(accepted)} accepted, {len(refused)} refused "
            f"(429); API process peak RSS {peak:.0f} MiB (bound {API_MEMORY_BOUND_MIB})\n"
        )
    assert peak <= API_MEMORY_BOUND_MIB
