"""Sweep read benchmark: server CPU per ``GET .../executeSweep/{sweepId}``, running and finished.

``bench_sweep.py`` polls a sweep while it runs, so every read's CPU is taken from the workers
on a 2-core machine. This script measures the read alone, without running any trial: it starts
``backtestd serve`` on an empty data directory, writes sweeps of ``--rows`` rows straight into
its database (metrics, 30 daily returns each, and an equity curve of ``--curve-points`` points
on the best ``n`` rows, as a shard leaves them), then reads each one ``--reads`` times over HTTP
as running (shards still running) and as finished, and prints the server process's CPU per read
(``/proc/<pid>/stat``; the idle server's own rate, measured first, is printed beside it).

Run: ``.venv/bin/python benchmarks/bench_sweep_read.py [--rows 100 1000]``. A script, not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import LiveServer  # noqa: E402

from backtestd.domain.backtests import BaseConfig  # noqa: E402
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus  # noqa: E402
from backtestd.domain.sweeps import (  # noqa: E402
    CurvePrefs,
    Objective,
    Sampler,
    SweepAxis,
    SweepRow,
    SweepShardSpec,
    SweepSpec,
    TrialCurve,
)
from backtestd.engine.metrics import Metrics, sweep_metrics  # noqa: E402
from backtestd.storage.db.engine import Database  # noqa: E402
from backtestd.storage.db.repositories.jobs import JobRepository  # noqa: E402
from backtestd.storage.db.repositories.sweeps import SweepRowRepository  # noqa: E402

USER = "bench"
PREPARE = "bench-prepare"


def server_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def write_sweep(
    db: Database, sweep_id: str, rows: int, curve_points: int, n: int, stored: int | None = None
) -> None:
    """A grid sweep of ``rows`` vectors (fast x slow), two shards, its first ``stored`` rows
    (all by default) stored; :func:`write_rows` stores more."""
    slows = list(range(1, rows // 10 + 1))
    spec = SweepSpec(
        prepare_job_id=PREPARE,
        strategy_id="s-bench",
        axes=(SweepAxis("fast", tuple(range(10))), SweepAxis("slow", tuple(slows))),
        sampler=Sampler.GRID,
        seed=0,
        samples=None,
        objective=Objective.SHARPE,
        base_config=BaseConfig(),
        min_trade_floor=0,
        shards=2,
        walk_forward=None,
        curves=CurvePrefs(),
    )
    now = datetime.now(UTC)
    with db.unit_of_work() as uow:
        jobs = JobRepository(uow.session)
        for job_id, kind in ((sweep_id, JobKind.SWEEP), (f"{sweep_id}.0", JobKind.SWEEP_SHARD)):
            jobs.add(
                JobRecord(
                    job_id=job_id,
                    user_id=USER,
                    kind=kind,
                    exchange_id="sim",
                    data_type="kline",
                    spec=spec if kind is JobKind.SWEEP else SweepShardSpec(sweep_id, 0, rows),
                    status=JobStatus.NEW,
                    created_at=now,
                    size=rows,
                )
            )
            jobs.mark_started(job_id, now)
    write_rows(db, sweep_id, rows, curve_points, n, 0, rows if stored is None else stored)


def write_rows(
    db: Database, sweep_id: str, rows: int, curve_points: int, n: int, start: int, stop: int
) -> None:
    """Rows ``start .. stop-1`` of :func:`write_sweep`'s sweep, in one transaction (as a
    shard's flush writes its batch); the same rows whatever the batches."""
    rng = random.Random(rows)
    slows = list(range(1, rows // 10 + 1))
    sharpes = [rng.gauss(0, 1) for _ in range(rows)]
    best = set(sorted(range(rows), key=lambda i: -sharpes[i])[:n])
    now = datetime.now(UTC)
    with db.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        for ix in range(start, min(stop, rows)):
            rng = random.Random(rows * 100_003 + ix)
            curve = None
            if ix in best:
                ts = tuple(1_700_000_000_000 + 60_000 * k for k in range(curve_points))
                curve = TrialCurve(ts, tuple(100.0 + rng.random() for _ in ts))
            metrics = Metrics(1.0, 1.2, 50, 0.5, sharpes[ix], 0.4, 0.2, 0.1, 0.05)
            repo.add(
                SweepRow(
                    sweep_id=sweep_id,
                    run_ix=ix,
                    params={"fast": ix % 10, "slow": slows[ix // 10]},
                    metrics=sweep_metrics(metrics),
                    aborted=False,
                    runtime_ms=100,
                    daily_returns=tuple(rng.gauss(0, 0.01) for _ in range(30)),
                    curve=curve,
                ),
                now,
            )


def finish(db: Database, sweep_id: str) -> None:
    now = datetime.now(UTC)
    with db.unit_of_work() as uow:
        jobs = JobRepository(uow.session)
        for job_id in (f"{sweep_id}.0", sweep_id):
            jobs.finish(job_id, JobStatus.COMPLETED, now, None, None)


def growing(
    client: httpx.Client, pid: int, db: Database, rows: int, args: argparse.Namespace
) -> None:
    """Server CPU per GET of a sweep whose rows arrive ``args.growing`` at a time."""
    sweep_id = f"grow-{rows}"
    path = f"/backtest/sim/kline/executeSweep/{PREPARE}/{sweep_id}?order=natural"
    write_sweep(db, sweep_id, rows, args.curve_points, args.curves, stored=0)
    used = 0.0
    reads = 0
    for start in range(0, rows, args.growing):
        write_rows(db, sweep_id, rows, args.curve_points, args.curves, start, start + args.growing)
        cpu = server_cpu(pid)
        client.get(path).raise_for_status()
        used += server_cpu(pid) - cpu
        reads += 1
    print(
        f"{rows} rows arriving {args.growing} at a time, natural order, one GET after each "
        f"batch: {used / reads * 1000:.1f} ms of server CPU a GET ({reads} GETs, "
        f"{used:.2f} s in all)"
    )


def per_read(client: httpx.Client, pid: int, path: str, reads: int) -> tuple[float, float]:
    """Median wall ms and mean server CPU ms of ``reads`` GETs (after one warm-up read)."""
    client.get(path).raise_for_status()
    cpu = server_cpu(pid)
    walls = []
    for _ in range(reads):
        t0 = time.perf_counter()
        client.get(path).raise_for_status()
        walls.append(time.perf_counter() - t0)
    used = server_cpu(pid) - cpu
    return sorted(walls)[len(walls) // 2] * 1000, used / reads * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--curve-points", type=int, default=20_000)
    parser.add_argument("--curves", type=int, default=10, help="rows that keep a curve")
    parser.add_argument("--reads", type=int, default=20)
    parser.add_argument(
        "--growing",
        type=int,
        default=0,
        metavar="BATCH",
        help="first, per size: rows added BATCH at a time, one natural-order GET after each "
        "(a running sweep polled as its shards write: every read sees a new row count)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp))
        server.start()
        try:
            assert server.process is not None
            pid = server.process.pid
            token = server.token(server.create_key(USER, tier="elite"))
            db = Database(f"sqlite:///{Path(tmp) / 'backtestd.sqlite3'}")
            idle = server_cpu(pid)
            time.sleep(3)
            print(f"idle server: {(server_cpu(pid) - idle) / 3 * 1000:.0f} ms of CPU a second")
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=server.base_url, headers=headers, timeout=120) as client:
                for rows in args.rows:
                    if args.growing:
                        growing(client, pid, db, rows, args)
                    sweep_id = f"bench-sweep-{rows}"
                    write_sweep(db, sweep_id, rows, args.curve_points, args.curves)
                    path = f"/backtest/sim/kline/executeSweep/{PREPARE}/{sweep_id}"
                    for state in ("running", "finished"):
                        if state == "finished":
                            finish(db, sweep_id)
                        for query in ("?order=natural", ""):
                            wall, cpu = per_read(client, pid, path + query, args.reads)
                            print(
                                f"{rows} rows, {state}, {query or 'ranked (plateau)'}: "
                                f"median {wall:.1f} ms per GET, {cpu:.1f} ms of server CPU each"
                            )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
