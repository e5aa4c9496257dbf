"""Attacker then victim, for the resource points of issue 26 (2: rows, 3: previews, 4: storage).

Each attack starts its own ``backtestd serve`` (``tests/support/server.py``, SQLite, two Dask
workers) with the code on ``PYTHONPATH``, so the same command measures any checkout, e.g. the
commit before a fix in a ``git worktree`` (docs/benchmarks.md, "Fair resources")::

    PYTHONPATH=$PWD/src .venv/bin/python benchmarks/bench_fair_resources.py --attack rows
    PYTHONPATH=/tmp/wt-before/src .venv/bin/python benchmarks/bench_fair_resources.py ...

The victim is a pro user with an ordinary execute (EMA cross over one hour of ``sim`` ticks) and
a bystander polling ``GET /v1/account`` every 0.1 s. Each attack prints the victim's execute
times and the bystander's GET latency without the attack, then during it, and what the attack
achieved:

* ``rows`` (point 2): a free user uploads a parquet file of ``--bomb-rows`` rows (1 ms apart,
  one price: a few hundred kB), then asks for eight one-hour prepares of it at once. Fixed: the
  ingest is refused naming ``maxDatasetRows``, so nothing is prepared. Before: the version is
  ready and every prepare loads all of it in a worker.
* ``previews`` (point 3): a free user uploads ``--preview-rows`` rows of a random walk, then
  sends ``--previews`` concurrent ``GET /datasets/{id}/preview`` with different ``points``.
  Fixed: served from the preview base the ingest stored. Before: each read the whole version
  in the API process.
* ``storage`` (point 4): the victim prepares and runs, then goes idle; a free user makes
  ``--prepares`` prepares of other hours and ``--sweeps`` sweeps keeping their curves, with
  ``BACKTESTD_PREPARED_MAX_BYTES`` at three prepares (reclaim grace 0: the victim is idle
  during the attack, so nothing is reclaimed under a run) and ``BACKTESTD_SWEEP_CURVES_MAX_BYTES``
  at ``--curve-budget`` (settings are ignored by code that does not know them). Printed: what
  the prepared columns and the stored curves hold afterwards, and the victim's next execute (a
  rebuild of its reclaimed columns shows in its time and in the server log).

A script, not a test (the proofs are tests/e2e and tests/integration); timings depend on the
machine and its load.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import LiveServer  # noqa: E402
from tests.support.strategies import source  # noqa: E402

TERMINAL = ("Completed", "Failed", "Aborted")
HOUR = timedelta(hours=1)


class Client:
    def __init__(self, server: LiveServer, user: str, tier: str) -> None:
        key = server.create_key(user, tier=tier)
        token = httpx.post(f"{server.base_url}/auth/token", headers={"X-API-Key": key}).json()
        self.headers = {"Authorization": f"Bearer {token['access_token']}"}
        self.base = server.base_url
        self.http = httpx.Client(base_url=self.base, headers=self.headers, timeout=300)

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, path, **kwargs)
        assert response.status_code < 400, f"{method} {path}: {response.text}"
        return response.json() if response.content else None

    def prepared(self, end_hours_ago: int = 3, hours: int = 1) -> str:
        end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - end_hours_ago * HOUR
        body = {"instrument": "BTC/USDT", "from": _iso(end - hours * HOUR), "to": _iso(end)}
        job = self.call("POST", "/backtest/sim/ticker/prepare", json=body)["jobId"]
        self.wait_prepare("sim", str(job))
        return str(job)

    def wait_prepare(self, exchange: str, job: str) -> str:
        while (state := self.call("GET", f"/backtest/{exchange}/ticker/prepare/{job}"))[
            "status"
        ] not in TERMINAL:
            time.sleep(0.2)
        return str(state["status"])

    def strategy(self, text: str) -> str:
        return str(self.call("POST", "/strategy", content=text)["strategyId"])

    def upload(self, name: str, data: bytes) -> dict[str, Any]:
        """Create a dataset, PUT ``data`` to its signed target, finalize; the upload's end state."""
        created = self.call("POST", "/datasets", json={"name": name, "instrument": "btc/usdt"})
        put = httpx.put(created["upload"]["url"], content=data, timeout=300)
        assert put.status_code < 400, put.text
        path = f"/datasets/{created['datasetId']}/uploads/{created['uploadId']}"
        self.call("POST", f"{path}/finalize")
        while (state := self.call("GET", path))["status"] not in ("ready", "failed"):
            time.sleep(0.3)
        return {**state, "datasetId": created["datasetId"]}


def _iso(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%SZ}"


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, math.ceil(len(ordered) * 0.99) - 1)]
    return (
        f"p50 {statistics.median(ordered) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms ({len(ordered)} requests)"
    )


class Bystander:
    """Polls ``GET /v1/account`` every 0.1 s while running; latency and statuses."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._stop = threading.Event()
        self.latencies: list[float] = []
        self.statuses: Counter[str] = Counter()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Bystander:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                status = str(self._client.http.get("/account", timeout=60).status_code)
            except httpx.HTTPError as error:
                status = type(error).__name__
            self.latencies.append(time.perf_counter() - started)
            self.statuses[status] += 1
            self._stop.wait(0.1)


class Victim:
    """Executes of one strategy on one prepare, each with new params (a new job)."""

    def __init__(self, client: Client, prepared: str) -> None:
        self.client = client
        self.prepared = prepared
        self.strategy = client.strategy(source("ema_cross.java"))
        self._run = 0

    def execute(self) -> float:
        self._run += 1
        body = {
            "prepareJobId": self.prepared,
            "strategyId": self.strategy,
            "params": {"fast": 3 + self._run},
        }
        started = time.monotonic()
        job = self.client.call("POST", "/backtest/sim/ticker/execute", json=body)["jobId"]
        while True:
            answer = self.client.http.get(f"/backtest/sim/ticker/execute/{job}")
            if answer.status_code == 200 and answer.json()["state"]["status"] in TERMINAL:
                assert answer.json()["state"]["status"] == "Completed", answer.text
                return time.monotonic() - started
            time.sleep(0.1)


def _phase(
    name: str,
    victim: Victim,
    bystander_client: Client,
    executes: int,
    busy: Callable[[], bool] = lambda: False,
) -> None:
    """At least ``executes`` victim executes, more while ``busy()``; the bystander polls."""
    with Bystander(bystander_client) as bystander:
        times = [victim.execute() for _ in range(executes)]
        while busy():
            times.append(victim.execute())
    shown = ", ".join(f"{t:.2f}" for t in times[:12]) + (", ..." if len(times) > 12 else "")
    print(
        f"  {name}: victim execute median {statistics.median(times):.2f} s, max "
        f"{max(times):.2f} s ({len(times)}: {shown})"
    )
    print(f"  {name}: bystander GET /v1/account {_ms(bystander.latencies)}")
    others = {k: v for k, v in bystander.statuses.items() if k != "200"}
    if others:
        print(f"  {name}: bystander answers other than 200: {dict(others)}")


def _during(
    name: str, attack: Callable[[], None], victim: Victim, bystander: Client, executes: int
) -> None:
    """Run ``attack`` in a thread; measure the victim for as long as it runs (at least
    ``executes`` executes), then report how long the attack took."""
    started = time.monotonic()
    thread = threading.Thread(target=attack, daemon=True)
    thread.start()
    time.sleep(0.2)  # the attack is under way
    _phase(name, victim, bystander, executes, thread.is_alive)
    thread.join()
    print(f"  the attack took {time.monotonic() - started:.1f} s")


def _api_peak_mb(server: LiveServer) -> str:
    """The API process's peak resident set (``VmHWM``; the Dask workers are other processes)."""
    assert server.process is not None
    status = Path(f"/proc/{server.process.pid}/status")
    for line in status.read_text().splitlines() if status.exists() else []:
        if line.startswith("VmHWM:"):
            return f"{int(line.split()[1]) / 1024:,.0f} MB"
    return "unknown"


def _server(root: Path, extra: dict[str, str]) -> LiveServer:
    env = {"BACKTESTD_DASK_WORKERS": "2", **extra}
    server = LiveServer(root, extra_env=env)
    server.start(timeout=600)
    return server


# -- point 2: a tiny parquet with many rows ----------------------------------------------


def bomb_parquet(rows: int) -> bytes:
    """``rows`` ticks one millisecond apart at one price: delta-encoded timestamps and a
    dictionary of one value compress to almost nothing."""
    schema = pa.schema([("timestamp", pa.int64()), ("close", pa.float64())])
    sink = io.BytesIO()
    start = int(datetime(2026, 1, 5, tzinfo=UTC).timestamp() * 1000)
    chunk = 1_000_000
    with pq.ParquetWriter(
        sink,
        schema,
        compression="zstd",
        use_dictionary=["close"],
        column_encoding={"timestamp": "DELTA_BINARY_PACKED"},
    ) as writer:
        for at in range(0, rows, chunk):
            n = min(chunk, rows - at)
            ts = np.arange(start + at, start + at + n, dtype=np.int64)
            writer.write_table(pa.table({"timestamp": ts, "close": np.full(n, 100.0)}, schema))
    return sink.getvalue()


def attack_rows(root: Path, args: argparse.Namespace) -> None:
    server = _server(root, {})
    try:
        victim = Victim(Client(server, "victim", "pro"), "")
        victim.prepared = victim.client.prepared()
        bystander = Client(server, "bystander", "pro")
        attacker = Client(server, "attacker", "free")
        data = bomb_parquet(args.bomb_rows)
        print(f"  the bomb: {args.bomb_rows:,} rows in a {len(data):,}-byte parquet file")
        _phase("no attack", victim, bystander, args.executes)
        start = datetime(2026, 1, 5, tzinfo=UTC)
        outcomes: list[str] = []

        def attack() -> None:
            upload = attacker.upload("bomb", data)
            print(f"  ingest: {upload['status']} {upload.get('error') or ''}")
            if upload["status"] != "ready":
                return  # nothing to prepare: the attack stops at ingest
            jobs = []
            for n in range(8):
                body = {
                    "datasetId": upload["datasetId"],
                    "from": _iso(start + n * timedelta(minutes=5)),
                    "to": _iso(start + n * timedelta(minutes=5) + HOUR),
                }
                jobs.append(attacker.call("POST", "/backtest/user/ticker/prepare", json=body))
            outcomes.extend(attacker.wait_prepare("user", job["jobId"]) for job in jobs)

        _during("during the upload and 8 prepares of it", attack, victim, bystander, args.executes)
        if outcomes:
            print(f"  the attacker's prepares: {dict(Counter(outcomes))}")
        _phase("after", victim, bystander, args.executes)
        print(f"  the API process's peak memory: {_api_peak_mb(server)}")
    finally:
        server.stop()


# -- point 3: concurrent previews --------------------------------------------------------


def walk_parquet(rows: int) -> bytes:
    rng = np.random.default_rng(7)
    start = int(datetime(2026, 1, 5, tzinfo=UTC).timestamp() * 1000)
    ts = start + np.arange(rows, dtype=np.int64) * 1000
    close = np.round(100 + np.cumsum(rng.normal(0, 0.01, rows)), 2)
    sink = io.BytesIO()
    pq.write_table(pa.table({"timestamp": ts, "close": close}), sink, compression="zstd")
    return sink.getvalue()


def attack_previews(root: Path, args: argparse.Namespace) -> None:
    server = _server(root, {})
    try:
        victim = Victim(Client(server, "victim", "pro"), "")
        victim.prepared = victim.client.prepared()
        bystander = Client(server, "bystander", "pro")
        attacker = Client(server, "attacker", "free")
        data = walk_parquet(args.preview_rows)
        upload = attacker.upload("walk", data)
        print(f"  dataset: {args.preview_rows:,} rows, {len(data):,} bytes, {upload['status']}")
        assert upload["status"] == "ready", upload
        _phase("no attack", victim, bystander, args.executes)
        answers: Counter[int] = Counter()
        took: list[float] = []
        lock = threading.Lock()

        def one(points: int) -> None:
            started = time.perf_counter()
            response = httpx.get(
                f"{attacker.base}/datasets/{upload['datasetId']}/preview",
                params={"points": points},
                headers=attacker.headers,
                timeout=600,
            )
            with lock:
                answers[response.status_code] += 1
                took.append(time.perf_counter() - started)

        def attack() -> None:
            threads = [threading.Thread(target=one, args=(100 + n,)) for n in range(args.previews)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

        _during(f"during {args.previews} previews", attack, victim, bystander, args.executes)
        print(f"  the attacker's previews: {dict(answers)}, {_ms(took)}")
        _phase("after", victim, bystander, args.executes)
        print(f"  the API process's peak memory: {_api_peak_mb(server)}")
    finally:
        server.stop()


# -- point 4: storage outside the quota --------------------------------------------------


def _tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def _curve_bytes(database: Path) -> int:
    """The text of every stored trial curve (read from the SQLite file, read-only)."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        query = "SELECT coalesce(sum(length(curve)), 0) FROM sweep_rows WHERE curve != 'null'"
        return int(connection.execute(query).fetchone()[0])


def _kept(kept: bool) -> str:
    return "kept" if kept else "reclaimed (the next execute rebuilds them first)"


def _database_bytes(database: Path) -> int:
    """The SQLite file with its write-ahead log."""
    return sum(p.stat().st_size for p in database.parent.glob(f"{database.name}*"))


def attack_storage(root: Path, args: argparse.Namespace) -> None:
    probe_root = root / "probe"
    sizes: dict[str, int] = {}
    # One prepare's columns, measured on a server of this code without budgets.
    probe = _server(probe_root, {})
    try:
        Client(probe, "probe", "pro").prepared(end_hours_ago=3, hours=args.prepare_hours)
        sizes["prepare"] = _tree_bytes(probe_root / "objects" / "prepared")
    finally:
        probe.stop()
    budget = 3 * sizes["prepare"]
    print(
        f"  one {args.prepare_hours}-hour prepare: {sizes['prepare']:,} bytes of columns; "
        f"BACKTESTD_PREPARED_MAX_BYTES={budget:,}, "
        f"BACKTESTD_SWEEP_CURVES_MAX_BYTES={args.curve_budget:,}"
    )
    data_dir = root / "server"
    server = _server(
        data_dir,
        {
            "BACKTESTD_PREPARED_MAX_BYTES": str(budget),
            "BACKTESTD_PREPARED_RECLAIM_GRACE_SECONDS": "0",
            "BACKTESTD_SWEEP_CURVES_MAX_BYTES": str(args.curve_budget),
        },
    )
    try:
        client = Client(server, "victim", "pro")
        started = time.monotonic()
        victim = Victim(client, client.prepared(end_hours_ago=3, hours=args.prepare_hours))
        print(f"  the victim's prepare took {time.monotonic() - started:.2f} s")
        bystander = Client(server, "bystander", "pro")
        attacker = Client(server, "attacker", "free")
        strategy = attacker.strategy(source("ema_cross.java"))
        _phase("no attack (the victim's prepare is warm)", victim, bystander, args.executes)
        database = data_dir / "backtestd.sqlite3"
        before = (_tree_bytes(data_dir / "objects" / "prepared"), _curve_bytes(database))

        def attack() -> None:
            prepares = [
                attacker.prepared(
                    end_hours_ago=3 + args.prepare_hours * (n + 1), hours=args.prepare_hours
                )
                for n in range(args.prepares)
            ]
            for n in range(args.sweeps):
                path = f"/backtest/sim/ticker/executeSweep/{prepares[n % len(prepares)]}"
                body = {
                    "strategyId": strategy,
                    "sweep": {"params": {"fast": {"values": list(range(3, 3 + 10))}}},
                    "minTradeFloor": 30 + n,
                }
                sweep = attacker.call("POST", path, json=body)["sweepId"]
                while attacker.call("GET", f"{path}/{sweep}")["status"] == "RUNNING":
                    time.sleep(0.3)

        # The victim is idle meanwhile (its data is what an attacker could push out); only
        # the bystander polls.
        name = f"during {args.prepares} prepares and {args.sweeps} sweeps of an attacker"
        started = time.monotonic()
        with Bystander(bystander) as polls:
            attack()
        print(f"  {name}: bystander GET /v1/account {_ms(polls.latencies)}")
        print(f"  the attack took {time.monotonic() - started:.1f} s")
        after = (_tree_bytes(data_dir / "objects" / "prepared"), _curve_bytes(database))
        print(
            f"  prepared columns: {before[0]:,} -> {after[0]:,} bytes (budget {budget:,}); "
            f"stored sweep curves: {before[1]:,} -> {after[1]:,} bytes "
            f"(budget {args.curve_budget:,}); database files {_database_bytes(database):,} bytes"
        )
        columns = data_dir / "objects" / "prepared" / victim.prepared
        kept = any(columns.glob("*.bin"))
        print(f"  the victim's idle prepared columns after the attack: {_kept(kept)}")
        try:
            print(f"  the victim's next execute after the attack: {victim.execute():.2f} s")
        except AssertionError as failed:
            print(f"  the victim's next execute after the attack failed: {failed}")
        _phase("after", victim, bystander, args.executes)
    finally:
        server.stop()


ATTACKS = {"rows": attack_rows, "previews": attack_previews, "storage": attack_storage}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attack", choices=sorted(ATTACKS), action="append")
    parser.add_argument("--executes", type=int, default=3)
    parser.add_argument("--bomb-rows", type=int, default=20_000_000)
    parser.add_argument("--preview-rows", type=int, default=2_000_000)
    parser.add_argument("--previews", type=int, default=24)
    parser.add_argument("--prepare-hours", type=int, default=12)
    parser.add_argument("--prepares", type=int, default=6)
    parser.add_argument("--sweeps", type=int, default=4)
    parser.add_argument("--curve-budget", type=int, default=200_000)
    args = parser.parse_args()
    code = os.environ.get("PYTHONPATH", "(the installed package)")
    for name in args.attack or sorted(ATTACKS):
        print(f"attack {name!r}, server code from PYTHONPATH={code}")
        with tempfile.TemporaryDirectory(prefix=f"fair-resources-{name}-") as root:
            ATTACKS[name](Path(root), args)


if __name__ == "__main__":
    main()
