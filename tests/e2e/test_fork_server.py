"""Black-box: the fork server the workers come from can die without taking the service with it.

The embedded cluster forks its workers from one process (``jobs/executors/forked_workers.py``).
Killed (the kernel's OOM killer, an operator's ``kill``), its workers' nannies lose track of
them: each worker is then stopped with its engine host, a new fork server starts, new workers
are forked from it, and the job that was running runs again on one of them, as after any
worker's death. Nothing of the old ones is left running.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from qtsurfer_sdk import auth

from tests.e2e.backtest_helpers import (
    recent_range,
    wait_prepare,
    wait_prepare_half_done,
    wait_result,
)
from tests.support.processes import children, command_line, running
from tests.support.server import LiveServer
from tests.support.strategies import source


def _fork_servers(server: LiveServer) -> list[int]:
    assert server.process is not None
    return [
        pid
        for pid in children(server.process.pid)
        if b"multiprocessing.forkserver" in command_line(pid)
    ]


def _attempts(data_dir: Path, job_id: str) -> int:
    with sqlite3.connect(data_dir / "backtestd.sqlite3") as db:
        (attempts,) = db.execute("SELECT attempts FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
    return int(attempts)


def _wait_for(check: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_a_killed_fork_server_is_replaced_its_workers_leave_nothing_and_their_job_runs_again(
    tmp_path: Path,
) -> None:
    server = LiveServer(tmp_path / "data", extra_env={"BACKTESTD_DASK_WORKERS": "2"})
    server.start()
    try:
        session = auth(server.create_key("fork-server-kim"), base_url=server.base_url)
        (fork_server,) = _fork_servers(server)
        _wait_for(lambda: len(children(fork_server)) == 2)
        workers = children(fork_server)
        assert len(workers) == 2
        for worker in workers:  # what Dask's nanny sets for a worker, the fork server started ahead
            environment = Path(f"/proc/{worker}/environ").read_bytes().split(b"\0")
            assert b"OMP_NUM_THREADS=1" in environment
            assert b"OPENBLAS_NUM_THREADS=1" in environment
            assert b"MALLOC_TRIM_THRESHOLD_=65536" in environment
        _wait_for(lambda: all(children(worker) for worker in workers))  # their engine hosts
        old = workers + [jvm for worker in workers for jvm in children(worker)]
        # 240 hours: still running when the kill lands (wait_prepare_half_done)
        hours = 240
        start, end = recent_range(hours, end_hours_ago=30)
        prepared = session.prepare(
            exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
        )
        state = wait_prepare_half_done(session, "sim", "ticker", prepared.job_id)
        assert state.status.value == "Started", state.to_dict()

        os.kill(fork_server, signal.SIGKILL)

        _wait_for(lambda: not any(running(pid) for pid in old))
        assert [pid for pid in old if running(pid)] == []
        _wait_for(lambda: len(_fork_servers(server)) == 1)
        (replacement,) = _fork_servers(server)
        assert replacement != fork_server
        _wait_for(lambda: len(children(replacement)) == 2)
        assert len(children(replacement)) == 2

        final = wait_prepare(session, "sim", "ticker", prepared.job_id, timeout=300)
        assert final.status.value == "Completed"
        assert final.total_hours == hours
        assert final.completed == final.size == hours
        assert _attempts(server.data_dir, prepared.job_id) == 2  # killed once, ran once more
        strategy = session.compile_strategy(source("ema_cross.java")).strategy_id
        run = session.execute(
            exchange_id="sim", type_="ticker", prepare_job_id=prepared.job_id, strategy_id=strategy
        )
        body = wait_result(session, "sim", "ticker", run.job_id, timeout=120)
        assert body["state"]["status"] == "Completed", body
        worker_pid = int(body["results"]["hostName"].rsplit(":", 1)[1])
        assert worker_pid in children(replacement)
    finally:
        server.stop()


def test_with_fork_workers_off_serve_spawns_its_workers_itself(tmp_path: Path) -> None:
    server = LiveServer(
        tmp_path / "data",
        extra_env={"BACKTESTD_DASK_WORKERS": "2", "BACKTESTD_FORK_WORKERS": "false"},
    )
    server.start()
    try:
        assert server.process is not None
        assert _fork_servers(server) == []
        spawned = [
            pid
            for pid in children(server.process.pid)
            if b"multiprocessing.spawn" in command_line(pid)
        ]
        assert len(spawned) == 2  # the API answers once the cluster's workers have joined
    finally:
        server.stop()
