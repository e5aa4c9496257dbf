"""Black-box: the scaled-out deployment, every part its own OS process.

Two ``backtestd serve`` replicas on different ports, one PostgreSQL, an S3-compatible store
(moto in server mode), an external ``dask scheduler`` on mutual TLS (refusing unencrypted peers,
as ``deploy/`` runs it) and two ``backtestd worker`` processes.
A user registers on one replica and prepares, executes and reads on the other; jobs spread
over both workers; then a worker is killed with SIGKILL in the middle of work and every job
still completes once, with the result a healthy run gives.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import recent_range, wait_prepare, wait_result
from tests.support.ports import free_port
from tests.support.processes import descendants
from tests.support.server import BIN, LiveServer, harness_environment
from tests.support.services import S3_TEST_CREDENTIALS, s3_server, temporary_postgres_database
from tests.support.strategies import source
from tests.support.tls import CertificateAuthority


@dataclass
class Cluster:
    replicas: list[LiveServer]
    workers: list[subprocess.Popen[bytes]]
    scheduler: str
    env: dict[str, str]
    root: Path


def _worker_pids(worker: subprocess.Popen[bytes]) -> set[int]:
    """The worker process and its descendants (the nanny runs the job in a process forked
    from its fork server, a grandchild)."""
    return descendants(worker.pid)


def _start_worker(env: dict[str, str], root: Path, name: str) -> subprocess.Popen[bytes]:
    data = root / name
    data.mkdir(parents=True, exist_ok=True)
    with (root / f"{name}.log").open("ab") as out:
        return subprocess.Popen(
            [str(BIN), "worker"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**env, "BACKTESTD_DATA_DIR": str(data)},
        )


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("cluster")
    authority = CertificateAuthority(root)
    scheduler_tls, backtestd_tls = authority.issue("scheduler"), authority.issue("backtestd")
    with temporary_postgres_database() as database_url, s3_server() as endpoint:
        port = free_port()
        scheduler_address = f"tls://127.0.0.1:{port}"
        dask = Path(sys.executable).with_name("dask")
        with (root / "scheduler.log").open("wb") as out:
            scheduler = subprocess.Popen(
                [str(dask), "scheduler", "--host", "127.0.0.1", "--protocol", "tls"]
                + ["--port", str(port), "--dashboard-address", ":0"]
                + ["--tls-ca-file", str(scheduler_tls.ca_file)]
                + ["--tls-cert", str(scheduler_tls.cert_file)]
                + ["--tls-key", str(scheduler_tls.key_file)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**harness_environment(), "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True"},
            )
        shared = {
            "BACKTESTD_DASK_TLS_CA_FILE": str(backtestd_tls.ca_file),
            "BACKTESTD_DASK_TLS_CERT_FILE": str(backtestd_tls.cert_file),
            "BACKTESTD_DASK_TLS_KEY_FILE": str(backtestd_tls.key_file),
            **S3_TEST_CREDENTIALS,
            "BACKTESTD_DATABASE_URL": database_url,
            "BACKTESTD_OBJECT_STORE_URL": "s3://backtestd-cluster/objects",
            "BACKTESTD_S3_ENDPOINT_URL": endpoint,
            "BACKTESTD_JWT_SECRET": "cluster-test-secret-" + "x" * 32,
            "BACKTESTD_DASK_SCHEDULER": scheduler_address,
            "BACKTESTD_JOB_RECOVERY_SECONDS": "5",
        }
        env = {**harness_environment(), **shared}
        workers = [_start_worker(env, root, f"worker-{i}") for i in range(2)]
        replicas = [LiveServer(root / f"api-{i}", extra_env=shared) for i in range(2)]
        try:
            for replica in replicas:
                replica.start(timeout=180)
            yield Cluster(replicas, workers, scheduler_address, env, root)
        finally:
            for replica in replicas:
                replica.stop()
            for process in [*workers, scheduler]:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()


def _session(cluster: Cluster, replica: int, key: str) -> AuthenticatedSession:
    return auth(key, base_url=cluster.replicas[replica].base_url)


def test_a_journey_across_both_replicas_spreads_over_both_workers(cluster: Cluster) -> None:
    key = cluster.replicas[0].create_key("cluster-ivy", tier="elite")
    one, two = _session(cluster, 0, key), _session(cluster, 1, key)
    strategy_id = one.compile_strategy(source("ema_cross.java")).strategy_id
    assert strategy_id in [s.strategy_id for s in two.list_strategies().strategies]
    start, end = recent_range(2)
    prepared = []
    for pair in ("BTC/USDT", "ETH/USDT", "SOL/USDT", "BNB/USDT"):
        job = two.prepare(exchange_id="sim", type_="ticker", instrument=pair, from_=start, to=end)
        prepared.append(job.job_id)
    for job_id in prepared:
        state = wait_prepare(one, "sim", "ticker", job_id, timeout=240)
        assert state.status.value == "Completed"
    runs = [
        two.execute(
            exchange_id="sim", type_="ticker", prepare_job_id=job_id, strategy_id=strategy_id
        ).job_id
        for job_id in prepared
    ]
    hosts = set()
    for run in runs:
        body = wait_result(one, "sim", "ticker", run, timeout=240)
        assert body["state"]["status"] == "Completed", body
        hosts.add(int(body["results"]["hostName"].rsplit(":", 1)[1]))
    owners = [i for i, worker in enumerate(cluster.workers) if hosts & _worker_pids(worker)]
    assert sorted(owners) == [0, 1], (hosts, [w.pid for w in cluster.workers])
    assert "Dask cluster at" in cluster.replicas[1].log_path.read_text()


def test_a_worker_killed_mid_prepare_leaves_the_job_to_the_other(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL of a worker (and its job process) while prepares run: Dask reschedules the
    lost tasks on the survivor, each job completes exactly once, with the result of a run that
    was never interrupted."""
    _wait_for_workers(cluster, 2)  # both joined, so the prepares spread over both
    key = cluster.replicas[1].create_key("cluster-jack", tier="elite")
    session = _session(cluster, 1, key)
    # 96 hours: long enough that both prepares are still running when the kill lands (24 took
    # about a second once workers were warm, and a job that had finished was never re-run)
    start, end = recent_range(96, end_hours_ago=30)
    jobs = [
        session.prepare(
            exchange_id="sim", type_="ticker", instrument=pair, from_=start, to=end
        ).job_id
        for pair in ("BTC/USDT", "ETH/USDT")
    ]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # both workers busy generating and reading hours
        states = [
            session.get_prepare_status(exchange_id="sim", type_="ticker", job_id=j).status.value
            for j in jobs
        ]
        if states == ["Started", "Started"]:
            break
        time.sleep(0.1)
    assert states == ["Started", "Started"], states
    before = _attempts_by_job(cluster.env["BACKTESTD_DATABASE_URL"], jobs)
    # Kill the worker whose process tree is busy (both should be; one may run both jobs).
    index = _busiest(cluster.workers, 0.3)
    victim = cluster.workers[index]
    for pid in _worker_pids(victim):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    killed_at = time.monotonic()
    victim.wait(timeout=20)
    try:
        database_url = cluster.env["BACKTESTD_DATABASE_URL"]
        timeline = _watch(database_url, jobs, before, killed_at, timeout=300)
        with capsys.disabled():  # the drill's figures, for docs/deployment.md
            sys.stdout.write(timeline.figure("worker killed mid-prepare (96 h, 2 jobs)"))
        states = [wait_prepare(session, "sim", "ticker", job_id, timeout=300) for job_id in jobs]
        assert [s.status.value for s in states] == ["Completed", "Completed"]
        # The same prepares on the untouched half of the cluster give the same coverage.
        again = [s.to_dict() for s in states]
        for state in again:
            assert state["coverageRatio"] == 1.0
            assert state["totalHours"] == 96
        attempts = _attempts(cluster.env["BACKTESTD_DATABASE_URL"], jobs)
        assert sorted(attempts) == [1, 2], attempts  # the killed one ran again, nothing ran thrice
    finally:  # a failed drill must not leave the next test one worker short
        cluster.workers[index] = _start_worker(cluster.env, cluster.root, f"worker-{index}b")


BUSY = """\
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class BusyCross extends AbstractTickerStrategy {
    private double prev = Double.NaN;
    private long sink;
    private boolean holding;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        for (int i = 0; i < 800_000; i++) {  // seconds of work per run, for the drill
            sink += (i ^ sink) & 7;
        }
        double p = ticker.last();
        if (!holding && p > prev && sink != 42) {
            emitBuy(ticker.instrument(), p);
            holding = true;
        } else if (holding && p < prev) {
            emitSell(ticker.instrument(), p);
            holding = false;
        }
        prev = p;
    }
}
"""


def test_a_worker_killed_mid_execute_leaves_the_job_to_the_other(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL of a worker while two identical executes (two users) run, one on each worker:
    the killed one is rescheduled on the survivor and completes once, with exactly the result
    of the run that was never interrupted."""
    _wait_for_workers(cluster, 2)  # the previous drill's replacement worker has joined
    start, end = recent_range(2, end_hours_ago=80)
    runs = []
    for user in ("cluster-liam", "cluster-mona"):
        session = _session(cluster, 0, cluster.replicas[0].create_key(user, tier="elite"))
        strategy_id = session.compile_strategy(BUSY).strategy_id
        prepared = session.prepare(
            exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
        ).job_id
        assert wait_prepare(session, "sim", "ticker", prepared).status.value == "Completed"
        runs.append((session, prepared, strategy_id))
    jobs = [
        session.execute(
            exchange_id="sim", type_="ticker", prepare_job_id=prepared, strategy_id=strategy_id
        ).job_id
        for session, prepared, strategy_id in runs
    ]
    deadline = time.monotonic() + 60
    states: list[str | None] = []
    while time.monotonic() < deadline:  # both runs in an engine host, one per worker
        states = [_job_status(cluster.env["BACKTESTD_DATABASE_URL"], job_id) for job_id in jobs]
        if states == ["Started", "Started"]:
            break
        time.sleep(0.1)
    assert states == ["Started", "Started"], states
    # Kill the worker whose process tree is burning CPU (the one running a busy execute).
    index = max(range(len(cluster.workers)), key=lambda i: _tree_cpu(cluster.workers[i], 1.0))
    before = _attempts_by_job(cluster.env["BACKTESTD_DATABASE_URL"], jobs)
    victim = cluster.workers[index]
    for pid in _worker_pids(victim):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    killed_at = time.monotonic()
    victim.wait(timeout=20)
    try:
        database_url = cluster.env["BACKTESTD_DATABASE_URL"]
        timeline = _watch(database_url, jobs, before, killed_at, timeout=300)
        with capsys.disabled():
            sys.stdout.write(timeline.figure("worker killed mid-execute (busy strategy, 2 jobs)"))
        results = [
            wait_result(session, "sim", "ticker", job_id, timeout=300)
            for (session, _, _), job_id in zip(runs, jobs, strict=True)
        ]
        assert [r["state"]["status"] for r in results] == ["Completed", "Completed"], results
        metrics = [
            {k: v for k, v in r["results"].items() if k not in ("hostName", "iops", "strategyId")}
            for r in results
        ]
        assert metrics[0] == metrics[1]
        assert metrics[0]["totalTrades"] > 0
        attempts = _attempts(cluster.env["BACKTESTD_DATABASE_URL"], jobs)
        assert max(attempts) == 2, attempts  # what the killed worker ran ran again...
        assert min(attempts) >= 1  # ...and nothing ran three times
    finally:  # a failed drill must not leave the next test one worker short
        cluster.workers[index] = _start_worker(cluster.env, cluster.root, f"worker-{index}c")


def _wait_for_workers(cluster: Cluster, count: int, timeout: float = 120) -> None:
    from distributed import Client
    from distributed.security import Security

    env = cluster.env
    security = Security(
        tls_ca_file=env["BACKTESTD_DASK_TLS_CA_FILE"],
        tls_client_cert=env["BACKTESTD_DASK_TLS_CERT_FILE"],
        tls_client_key=env["BACKTESTD_DASK_TLS_KEY_FILE"],
        require_encryption=True,
    )
    with Client(cluster.scheduler, security=security, timeout=30) as client:
        deadline = time.monotonic() + timeout
        while len(client.scheduler_info()["workers"]) < count:
            assert time.monotonic() < deadline, "the workers did not all join the scheduler"
            time.sleep(0.5)
    _wait_until_idle(cluster.workers, deadline)


def _wait_until_idle(workers: list[subprocess.Popen[bytes]], deadline: float) -> None:
    """Until no worker's process tree is busy: a worker warms up as it joins (numba kernels,
    its engine host's JIT warm-up, about 1-2 s of CPU), and the drills pick the worker to kill
    by the CPU its jobs use, so a warm-up still running would look like a job."""
    while True:
        before = [_tree_ticks(worker) for worker in workers]
        time.sleep(0.5)
        used = [_tree_ticks(worker) - was for worker, was in zip(workers, before, strict=True)]
        if max(used) <= 10:  # at most 0.1 CPU s in 0.5 s (ticks are 1/100 s)
            return
        assert time.monotonic() < deadline, f"the workers stayed busy after joining: {used}"


def _busiest(workers: list[subprocess.Popen[bytes]], seconds: float) -> int:
    """The index of the worker whose process tree used the most CPU over ``seconds`` (all
    sampled over the same window, so a short job is still running when the answer comes)."""
    before = [_tree_ticks(worker) for worker in workers]
    time.sleep(seconds)
    used = [_tree_ticks(worker) - was for worker, was in zip(workers, before, strict=True)]
    return max(range(len(workers)), key=lambda i: used[i])


def _tree_ticks(worker: subprocess.Popen[bytes]) -> int:
    total = 0
    for pid in descendants(worker.pid):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime + stime
    return total


def _tree_cpu(worker: subprocess.Popen[bytes], seconds: float) -> int:
    """CPU ticks the worker's process tree (job process and engine host included) used over
    ``seconds``."""

    before = _tree_ticks(worker)
    time.sleep(seconds)
    return _tree_ticks(worker) - before


@dataclass
class Timeline:
    """What the jobs table showed after a kill, polled every 0.1 s (seconds since the kill)."""

    retried_after: dict[str, float]  # job id -> when its attempts went up (a run began again)
    completed_after: dict[str, float]
    attempts: dict[str, int]

    def figure(self, drill: str) -> str:
        jobs = []
        for job, done in sorted(self.completed_after.items(), key=lambda item: item[1]):
            again = self.retried_after.get(job)
            rerun = "" if again is None else f", attempts rose at {again:.1f} s"
            jobs.append(f"attempts {self.attempts[job]}{rerun}, done at {done:.1f} s")
        return (
            f"\n{drill}, seconds after the kill: all done at "
            f"{max(self.completed_after.values()):.1f} s; " + "; ".join(jobs) + "\n"
        )


def _watch(
    database_url: str, job_ids: list[str], before: list[int], killed_at: float, timeout: float
) -> Timeline:
    """Poll the jobs table from the kill until every job is terminal (``before``: the jobs'
    attempts just before the kill)."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(database_url)
    query = sqlalchemy.text(
        "SELECT job_id, status, attempts FROM jobs WHERE job_id IN :ids"
    ).bindparams(sqlalchemy.bindparam("ids", expanding=True))
    first = dict(zip(job_ids, before, strict=True))
    timeline = Timeline({}, {}, {})
    try:
        deadline = time.monotonic() + timeout
        while len(timeline.completed_after) < len(job_ids):
            assert time.monotonic() < deadline, f"jobs not finished: {timeline}"
            with engine.connect() as connection:
                rows = connection.execute(query, {"ids": job_ids}).all()
            now = time.monotonic() - killed_at
            for job_id, status, attempts in rows:
                timeline.attempts[job_id] = int(attempts)
                if int(attempts) > first[job_id] and job_id not in timeline.retried_after:
                    timeline.retried_after[job_id] = now
                if status in ("Completed", "Failed", "Aborted"):
                    timeline.completed_after.setdefault(job_id, now)
            time.sleep(0.1)
    finally:
        engine.dispose()
    return timeline


def _job_status(database_url: str, job_id: str) -> str | None:
    import sqlalchemy

    engine = sqlalchemy.create_engine(database_url)
    try:
        with engine.connect() as connection:
            row = connection.execute(
                sqlalchemy.text("SELECT status FROM jobs WHERE job_id = :id"), {"id": job_id}
            ).first()
            return None if row is None else str(row[0])
    finally:
        engine.dispose()


def _attempts_by_job(database_url: str, job_ids: list[str]) -> list[int]:
    """Each job's attempts, in the order of ``job_ids``."""
    return [_attempts(database_url, [job_id])[0] for job_id in job_ids]


def _attempts(database_url: str, job_ids: list[str]) -> list[int]:
    import sqlalchemy

    engine = sqlalchemy.create_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sqlalchemy.text("SELECT attempts FROM jobs WHERE job_id IN :ids").bindparams(
                    sqlalchemy.bindparam("ids", expanding=True)
                ),
                {"ids": job_ids},
            )
            return [int(row[0]) for row in rows]
    finally:
        engine.dispose()


def test_jobs_queued_through_a_killed_replica_finish(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL of the replica that queued the jobs, right after queuing: tasks it had handed
    to the scheduler (fire-and-forget) run on the workers; a job it had committed but not yet
    sent is found by the other replica's recovery check (the scheduler does not hold it) and
    resubmitted. Every job completes, and the other replica reports it, with no restart."""
    key = cluster.replicas[0].create_key("cluster-kate", tier="elite")
    doomed, survivor = _session(cluster, 1, key), _session(cluster, 0, key)
    start, end = recent_range(6, end_hours_ago=60)
    jobs = [
        doomed.prepare(
            exchange_id="sim", type_="ticker", instrument=pair, from_=start, to=end
        ).job_id
        for pair in ("BTC/USDT", "ETH/USDT", "SOL/USDT")
    ]
    process = cluster.replicas[1].process
    assert process is not None
    before = _attempts_by_job(cluster.env["BACKTESTD_DATABASE_URL"], jobs)
    process.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    process.wait(timeout=20)
    timeline = _watch(cluster.env["BACKTESTD_DATABASE_URL"], jobs, before, killed_at, timeout=300)
    resubmitted = cluster.replicas[0].log_path.read_text().count("jobs no executor held")
    with capsys.disabled():
        sys.stdout.write(
            timeline.figure("replica killed right after queuing (3 prepares of 6 h)")
            + f"recovery resubmissions logged by the survivor so far: {resubmitted}\n"
        )
    for job_id in jobs:
        state = wait_prepare(survivor, "sim", "ticker", job_id, timeout=300)
        assert state.status.value == "Completed"
        assert state.to_dict()["totalHours"] == 6
    assert max(_attempts(cluster.env["BACKTESTD_DATABASE_URL"], jobs)) <= 2
    cluster.replicas[1].start(timeout=180)  # and the killed replica serves again
