"""Black-box: the scale-out mode — an external Dask scheduler, `backtestd worker`, and a
`serve` that submits to it instead of starting its own LocalCluster."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from qtsurfer_sdk import auth

from tests.e2e.backtest_helpers import recent_range, wait_prepare, wait_result
from tests.support.server import BIN, LiveServer, free_port
from tests.support.strategies import source


def _parent_pid(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[1])


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    logs = tmp_path_factory.mktemp("cluster")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = Path(sys.executable).with_name("dask")
    with (logs / "scheduler.log").open("wb") as out:
        scheduler = subprocess.Popen(
            [
                str(dask),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--dashboard-address",
                ":0",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    with (logs / "worker.log").open("wb") as out:
        worker = subprocess.Popen(
            [str(BIN), "worker", "--scheduler", address],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "BACKTESTD_DATA_DIR": str(logs / "unused")},
        )
    yield address, worker
    for process in (worker, scheduler):
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def test_jobs_run_on_an_external_worker(
    cluster: tuple[str, subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    address, worker = cluster
    server = LiveServer(tmp_path / "api", extra_env={"BACKTESTD_DASK_SCHEDULER": address})
    server.start()
    try:
        session = auth(server.create_key("scaled"), base_url=server.base_url)
        start, end = recent_range(2)
        job = session.prepare(
            exchange_id="sim", type_="ticker", instrument="BNB/USDT", from_=start, to=end
        )
        assert wait_prepare(session, "sim", "ticker", job.job_id, timeout=180).status.value == (
            "Completed"
        )
        strategy_id = session.compile_strategy(source("ema_cross.java")).strategy_id
        run = session.execute(
            exchange_id="sim", type_="ticker", prepare_job_id=job.job_id, strategy_id=strategy_id
        )
        body = wait_result(session, "sim", "ticker", run.job_id, timeout=180)
        assert body["state"]["status"] == "Completed"
        worker_pid = int(body["results"]["hostName"].rsplit(":", 1)[1])
        # The job ran in a process started by `backtestd worker` (its nanny's child).
        assert (
            _parent_pid(worker_pid) == worker.pid
            or _parent_pid(_parent_pid(worker_pid)) == worker.pid
        )
        assert f"jobs run on Dask cluster at {address}" in server.log_path.read_text()
        assert httpx.get(f"{server.base_url}/exchanges").status_code == 200
    finally:
        server.stop()
