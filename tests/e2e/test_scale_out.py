"""Black-box: the scale-out mode — an external Dask scheduler, `backtestd worker`, and a
`serve` that submits to it instead of starting its own LocalCluster."""

from __future__ import annotations

import os
import pickle
import re
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from qtsurfer_sdk import auth

from tests.e2e.backtest_helpers import recent_range, wait_prepare, wait_result
from tests.support.ports import free_port
from tests.support.server import BIN, LiveServer, harness_environment
from tests.support.services import temporary_postgres_database
from tests.support.strategies import source
from tests.support.tls import CertFiles, CertificateAuthority


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


# --- Scale-out over mutual TLS, and tasks that carry no secret -----------------------------

REPO_ROOT = Path(__file__).resolve().parents[2]
JWT_SECRET = "jwt-secret-that-must-never-reach-dask-0123456789abcdef"
DB_PASSWORD = "db-password-that-must-never-reach-dask-42"


def _capture_task_payloads(dask_scheduler: Any) -> None:
    """Runs on the scheduler: keep the pickled run spec (function and arguments) of each task,
    i.e. exactly what any client allowed to talk to the scheduler can read."""
    from distributed.diagnostics.plugin import SchedulerPlugin

    class Capture(SchedulerPlugin):  # type: ignore[misc]
        name = "capture-task-payloads"

        def __init__(self) -> None:
            self.payloads: list[bytes] = []

        def update_graph(self, scheduler: Any, *, keys: Any, **kwargs: Any) -> None:
            for key in keys:
                task = scheduler.tasks.get(key)
                if task is not None and task.run_spec is not None:
                    self.payloads.append(pickle.dumps(task.run_spec))

    dask_scheduler.add_plugin(Capture())


def _captured(dask_scheduler: Any) -> list[bytes]:
    return list(dask_scheduler.plugins["capture-task-payloads"].payloads)


def _tls_env(files: CertFiles) -> dict[str, str]:
    return {
        "BACKTESTD_DASK_TLS_CA_FILE": str(files.ca_file),
        "BACKTESTD_DASK_TLS_CERT_FILE": str(files.cert_file),
        "BACKTESTD_DASK_TLS_KEY_FILE": str(files.key_file),
    }


def _security(files: CertFiles) -> Any:
    from distributed.security import Security

    return Security(
        tls_ca_file=str(files.ca_file),
        tls_client_cert=str(files.cert_file),
        tls_client_key=str(files.key_file),
        require_encryption=True,
    )


def _wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def _refused(address: str, security: Any) -> str:
    """Try to connect a Dask client; the error it got (the test fails if it connected)."""
    from distributed import Client

    started = time.monotonic()
    try:
        with Client(address, security=security, timeout=5):
            pass
    except (OSError, TimeoutError) as exc:
        assert time.monotonic() - started < 15
        return type(exc).__name__
    pytest.fail(f"a client connected to {address} without a certificate from the cluster's CA")


def _tls_peer_without_certificate_is_refused(port: int, ca_file: Path) -> None:
    """A TLS client that trusts the CA but shows no certificate gets no Dask message."""
    context = ssl.create_default_context(cafile=str(ca_file))
    context.check_hostname = False
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        try:
            with context.wrap_socket(raw) as tls:
                tls.sendall(b"\x00" * 16)
                # TLS 1.3 reports the server's "certificate required" alert at the first read.
                reply = tls.recv(1024)
        except (ssl.SSLError, ConnectionError):
            return
    assert reply == b"", "the scheduler answered a peer without a certificate"


@pytest.fixture(scope="module")
def tls_cluster(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, int, CertFiles, CertFiles, str, subprocess.Popen[bytes]]]:
    root = tmp_path_factory.mktemp("tls-cluster")
    ca = CertificateAuthority(root)
    scheduler_files = ca.issue("scheduler")
    backtestd_files = ca.issue("backtestd")
    operator_files = ca.issue("operator")
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    dask = Path(sys.executable).with_name("dask")
    with temporary_postgres_database() as plain_url:
        # PostgreSQL here trusts local connections, so the password is ignored by the server
        # but travels wherever the URL does: exactly what a task must not carry.
        database_url = plain_url.replace("://postgres@", f"://postgres:{DB_PASSWORD}@", 1)
        assert DB_PASSWORD in database_url
        with (root / "scheduler.log").open("wb") as out:
            scheduler = subprocess.Popen(
                [
                    str(dask),
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--protocol",
                    "tls",
                    "--port",
                    str(port),
                    "--dashboard-address",
                    ":0",
                    "--tls-ca-file",
                    str(scheduler_files.ca_file),
                    "--tls-cert",
                    str(scheduler_files.cert_file),
                    "--tls-key",
                    str(scheduler_files.key_file),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={
                    **harness_environment(),
                    "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
                    # The payload capture below is a function of this module.
                    "PYTHONPATH": str(REPO_ROOT),
                },
            )
        _wait_for_port(port)
        with (root / "worker.log").open("wb") as out:
            worker = subprocess.Popen(
                [str(BIN), "worker", "--scheduler", address],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={
                    **harness_environment(),
                    "BACKTESTD_DATA_DIR": str(root / "unused"),
                    "BACKTESTD_DATABASE_URL": database_url,
                    **_tls_env(backtestd_files),
                },
            )
        try:
            yield address, port, backtestd_files, operator_files, database_url, worker
        finally:
            for process in (worker, scheduler):
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def test_tls_cluster_runs_jobs_and_its_tasks_carry_no_secret(
    tls_cluster: tuple[str, int, CertFiles, CertFiles, str, subprocess.Popen[bytes]],
    tmp_path: Path,
) -> None:
    from distributed import Client

    address, _, backtestd_files, operator_files, database_url, worker = tls_cluster
    # An operator holding a certificate from the cluster's CA records every task's payload.
    with Client(address, security=_security(operator_files), timeout=20) as operator:
        operator.run_on_scheduler(_capture_task_payloads)
        server = LiveServer(
            tmp_path / "api",
            database_url=database_url,
            extra_env={
                "BACKTESTD_DASK_SCHEDULER": address,
                "BACKTESTD_JWT_SECRET": JWT_SECRET,
                **_tls_env(backtestd_files),
            },
        )
        server.start()
        try:
            session = auth(server.create_key("tls"), base_url=server.base_url)
            start, end = recent_range(2)
            job = session.prepare(
                exchange_id="sim", type_="ticker", instrument="BNB/USDT", from_=start, to=end
            )
            prepared = wait_prepare(session, "sim", "ticker", job.job_id, timeout=180)
            assert prepared.status.value == "Completed"
            strategy_id = session.compile_strategy(source("ema_cross.java")).strategy_id
            run = session.execute(
                exchange_id="sim",
                type_="ticker",
                prepare_job_id=job.job_id,
                strategy_id=strategy_id,
            )
            body = wait_result(session, "sim", "ticker", run.job_id, timeout=180)
            assert body["state"]["status"] == "Completed", body
            worker_pid = int(body["results"]["hostName"].rsplit(":", 1)[1])
            assert worker.pid in (_parent_pid(worker_pid), _parent_pid(_parent_pid(worker_pid)))
            log = server.log_path.read_text()
            assert f"jobs run on Dask cluster at {address} (TLS)" in log
        finally:
            server.stop()
        payloads = operator.run_on_scheduler(_captured)
    # The capture saw both tasks (so the check below can fail) ...
    assert any(job.job_id.encode() in p for p in payloads)
    assert any(run.job_id.encode() in p for p in payloads)
    assert all(b"postgres:***@" in p for p in payloads)
    # ... and neither the JWT secret nor the database password is in any of them.
    for payload in payloads:
        assert JWT_SECRET.encode() not in payload
        assert DB_PASSWORD.encode() not in payload


def test_tls_scheduler_refuses_clients_without_a_certificate_from_its_ca(
    tls_cluster: tuple[str, int, CertFiles, CertFiles, str, subprocess.Popen[bytes]],
    tmp_path: Path,
) -> None:
    address, port, backtestd_files, _, _, _ = tls_cluster
    intruder = CertificateAuthority(tmp_path, "intruder").issue("intruder")
    # A local process speaking plain Dask (the issue's `Client.run` attack).
    assert _refused(f"tcp://127.0.0.1:{port}", None)
    # A certificate from another CA.
    assert _refused(address, _security(intruder))
    # A TLS peer trusting the CA but showing no certificate.
    _tls_peer_without_certificate_is_refused(port, backtestd_files.ca_file)
    # The control: the cluster's own certificate connects.
    from distributed import Client

    with Client(address, security=_security(backtestd_files), timeout=20) as client:
        assert client.scheduler_info()["workers"]


def test_the_embedded_cluster_refuses_local_clients_without_its_certificate(
    tmp_path: Path,
) -> None:
    """A plain `backtestd serve` (no TLS configured) still runs its own Dask cluster on mutual
    TLS with throwaway certificates, so another local user cannot `Client.run` code as it."""
    server = LiveServer(tmp_path / "embedded", extra_env={"BACKTESTD_DASK_WORKERS": "1"})
    server.start()
    try:
        log = server.log_path.read_text()
        found = re.search(r"Dask LocalCluster at (tls://127\.0\.0\.1:(\d+)) with .*\(TLS\)", log)
        assert found, log[-2000:]
        address, port = found.group(1), int(found.group(2))
        assert _refused(f"tcp://127.0.0.1:{port}", None)
        intruder = CertificateAuthority(tmp_path, "intruder").issue("intruder")
        assert _refused(address, _security(intruder))
        session = auth(server.create_key("embedded-tls"), base_url=server.base_url)
        start, end = recent_range(1)
        job = session.prepare(
            exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
        )
        assert wait_prepare(session, "sim", "ticker", job.job_id).status.value == "Completed"
    finally:
        server.stop()
