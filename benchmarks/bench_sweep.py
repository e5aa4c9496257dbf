"""Sweep benchmark: a 100-vector SMA-crossover grid over 30 days of 1 s bars, end to end.

The service runs the way users run it (``backtestd serve``: Dask LocalCluster, real JVM): the
``sim`` BTC/USDT range is prepared as ``kline`` at ``1s``, an SMA(fast)/SMA(slow) crossover
(long only, fee 0.1 %) is registered, and the grid fast 5..50 step 5 x slow 20..200 step 20 is
submitted. The figure is the time from submission until the last row is readable (the sweep
is COMPLETED). vectorbt runs the same grid on the prepared close prices in the same process
run (``--vbt-fraction`` of the bars: the whole grid over all bars at once needs more than the
machine's 24 GB, and was killed at 24 GB of RSS; ``--vbt-chunk N`` runs the portfolio N vectors at
a time, which fits), when installed (``uv sync --group bench --group dev``).

Memory: the peak RSS (``VmHWM``) of the service's processes (the API server, each Dask worker,
each engine-host JVM) is printed after the sweep; ``--rss-vectors N`` then runs a second grid of
N vectors (rounded down to tens: N/10 slow values from 20, the step shrunk) on the same server
and prints the peaks again, which must stay flat as the number of vectors grows.

Dense data (``--dense``, issue 30's goal 3): the sim klines have a bar only in the seconds that
saw a tick (about 967,000 bars in 30 days). With ``--dense`` the sim range is prepared as above,
then every empty second is filled with a flat bar at the previous close and volume 0 (a month
then holds 2,592,000 bars), the bars are uploaded as a user dataset (parquet, create, PUT,
finalize, ready) and prepared as ``kline`` at ``1s`` on ``exchangeId=user``
(``dense_dataset.py``); every sweep then runs on ``/backtest/user/kline/...``, and the
hand-written loop and vectorbt on that prepare's close prices.

Run: ``.venv/bin/python benchmarks/bench_sweep.py [--days 30]``. A script, not a test.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.processes import parent_of  # noqa: E402
from tests.support.server import LiveServer  # noqa: E402
from tests.support.strategies import source  # noqa: E402

import dense_dataset  # noqa: E402
import handwritten_sweep  # noqa: E402

GRID = {"fast": {"from": 5, "to": 50, "step": 5}, "slow": {"from": 20, "to": 200, "step": 20}}


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _tree(root: int) -> list[int]:
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo += _children(pid)
    return pids


def _kind(root: int, pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone"
    if pid == root:
        return "server"
    if b"multiprocessing.forkserver" in cmd and parent_of(pid) == root:
        return "fork server"  # the workers forked from it share its command line
    return "engine host" if b"HostMain" in cmd else "worker"


def _stat_seconds(stat: Path, system_only: bool = False) -> float:
    """User + system (or only system) CPU seconds of a process or thread, from its ``stat``."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[12]) if system_only else int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def cpu_seconds(root: int, system_only: bool = False) -> dict[int, tuple[str, float]]:
    """User + system (or only system) CPU seconds of ``root`` and each descendant, by pid.

    System time is worth its own line on a VM: there the kernel's first touch of a page costs
    a few microseconds (the host faults the memory in), so memory a process returned and takes
    again shows up as system time of the thread that touches it.
    """
    out = {}
    for pid in _tree(root):
        try:
            stat = Path(f"/proc/{pid}/stat")
            out[pid] = (_kind(root, pid), _stat_seconds(stat, system_only))
        except OSError:
            continue
    return out


def _thread_group(name: str) -> str:
    """The kind of a JVM thread, from its name (``comm``, cut to 15 characters by Linux)."""
    for prefix, group in (
        ("C2 ", "JIT C2"),
        ("C1 ", "JIT C1"),
        ("G1 ", "GC"),
        ("GC ", "GC"),
        ("VM Thread", "VM thread"),
    ):
        if name.startswith(prefix):
            return group
    return "strategy" if name.startswith("strategy") else "other"


def engine_thread_seconds(root: int) -> dict[tuple[int, int], tuple[str, float]]:
    """User + system CPU seconds of every engine-host thread, by (pid, tid), with its group."""
    out = {}
    for pid in _tree(root):
        if _kind(root, pid) != "engine host":
            continue
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                group = _thread_group((task / "comm").read_text().strip())
                out[(pid, int(task.name))] = (group, _stat_seconds(task / "stat"))
            except OSError:
                continue
    return out


def engine_threads_used(
    before: dict[tuple[int, int], tuple[str, float]],
    after: dict[tuple[int, int], tuple[str, float]],
    hosts_cpu: float,
) -> str:
    """The engine hosts' CPU between two snapshots, by thread group.

    A request's strategy thread ends with its request, so most of its CPU is in no snapshot:
    what the hosts used (``hosts_cpu``) beyond the threads seen in both is counted as
    "strategy, ended".
    """
    used: dict[str, float] = {}
    for key, (group, seconds) in after.items():
        used[group] = used.get(group, 0.0) + seconds - before.get(key, (group, 0.0))[1]
    used["strategy, ended"] = hosts_cpu - sum(used.values())
    return ", ".join(f"{group} {s:.2f}" for group, s in sorted(used.items(), key=lambda g: -g[1]))


def cpu_by_kind(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]
) -> dict[str, float]:
    """CPU seconds each kind of process used between two ``cpu_seconds`` snapshots."""
    used: dict[str, float] = {}
    for pid, (kind, seconds) in after.items():
        used[kind] = used.get(kind, 0.0) + seconds - before.get(pid, (kind, 0.0))[1]
    return used


def cpu_used(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]) -> str:
    """:func:`cpu_by_kind`, printed with its total."""
    used = cpu_by_kind(before, after)
    total = sum(used.values())
    parts = ", ".join(f"{kind} {s:.2f}" for kind, s in sorted(used.items()))
    return f"{total:.2f} CPU s ({parts})"


class CpuMeter:
    """The service's CPU from its creation to each :meth:`read`: by kind of process
    (:func:`cpu_used`), and the engine hosts' by thread group (:func:`engine_threads_used`)."""

    def __init__(self, root: int) -> None:
        self._root = root
        self._processes = cpu_seconds(root)
        self._system = cpu_seconds(root, system_only=True)
        self._threads = engine_thread_seconds(root)

    def read(self) -> tuple[str, str]:
        """The CPU used since the meter was made (with its system part), and the engine hosts'
        part by thread."""
        processes = cpu_seconds(self._root)
        hosts = cpu_by_kind(self._processes, processes).get("engine host", 0.0)
        threads = engine_threads_used(self._threads, engine_thread_seconds(self._root), hosts)
        system = cpu_used(self._system, cpu_seconds(self._root, system_only=True))
        return f"{cpu_used(self._processes, processes)}, of which system {system}", threads


def peak_rss(root: int) -> dict[str, list[int]]:
    """Peak RSS (MiB) of ``root`` and its descendants, grouped by process kind."""
    peaks: dict[str, list[int]] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        todo += _children(pid)
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        hwm = next(
            (line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")), ""
        )
        if not hwm:
            continue
        kind = "server" if pid == root else "engine host" if "HostMain" in cmd else "worker"
        if "resource_tracker" in cmd:
            continue
        peaks.setdefault(kind, []).append(int(hwm) // 1024)
    return peaks


def print_peaks(what: str, root: int) -> None:
    peaks = peak_rss(root)
    shown = ", ".join(f"{kind} {sorted(mb)} MiB" for kind, mb in sorted(peaks.items()))
    print(f"peak RSS {what}: {shown}")


def run_sweep(
    client: httpx.Client, job: str, strategy_id: str, grid: dict[str, Any]
) -> tuple[float, dict[str, Any], dict[str, Any]]:
    t0, submitted = time.perf_counter(), datetime.now(UTC)
    accepted = client.post(
        f"/backtest/{EXCHANGE}/kline/executeSweep/{job}",
        json={"strategyId": strategy_id, "shards": SHARDS, "sweep": {"params": grid}},
    ).json()
    result = poll(
        client,
        f"/backtest/{EXCHANGE}/kline/executeSweep/{job}/{accepted['sweepId']}?order=natural",
        lambda b: b["status"] != "RUNNING" and b["progress"]["pendingShards"] == 0,
        POLL_INTERVAL,
    )
    seconds = time.perf_counter() - t0
    end = result["state"].get("endTime")
    if end is not None:
        recorded = (datetime.fromisoformat(end.replace("Z", "+00:00")) - submitted).total_seconds()
        result["_recorded_s"] = recorded
    return seconds, accepted, result


POLLUTERS = (
    "sma_kline.java",
    "breakout.qts",
    "live_every_bar.java",
    "live_flip_hold.java",
    "live_dice.java",
    "ema_cross.qts",
)
"""``--pollute``: other users' kline strategies, each executed on the same prepared data."""


def pollute(client: httpx.Client, job: str, runs_each: int) -> None:
    """Run every strategy of ``POLLUTERS`` ``runs_each`` times through ``POST .../execute``
    on the prepared range, as other users' backtests would, so that both workers' engine hosts
    have served other strategies before the next sweep (their JIT profiles are then shared)."""
    for name in POLLUTERS:
        created = client.post("/strategy", content=source(name).encode())
        created.raise_for_status()
        strategy_id = created.json()["strategyId"]
        accepted = [
            client.post(
                f"/backtest/{EXCHANGE}/kline/execute",
                json={"prepareJobId": job, "strategyId": strategy_id},
            ).json()["jobId"]
            for _ in range(runs_each)
        ]
        for job_id in accepted:
            poll(
                client,
                f"/backtest/{EXCHANGE}/kline/execute/{job_id}",
                lambda b: b.get("state", {}).get("status") in ("Completed", "Failed", "Aborted"),
                0.25,
            )


def recorded(result: dict[str, Any]) -> str:
    """The sweep's own end (``state.endTime``: its last row set stored) after submission."""
    seconds = result.get("_recorded_s")
    if seconds is None:
        return ""
    return f" (the service recorded its end {seconds:.2f} s after submission)"


EXCHANGE = "sim"
"""The exchange id the sweeps run on: ``user`` with ``--dense`` (the prepared dataset)."""
SHARDS = 0
"""``--shards``: the request's shard count (0: the service decides, one per worker)."""
POLL_INTERVAL = 0.05
"""``--poll-interval``: seconds between two reads of a running sweep."""
TIMELINE: list[str] | None = None
"""With ``--timeline``: one line per change of a sweep's progress while it is polled."""


def poll(client: httpx.Client, path: str, done: Any, interval: float = 0.05) -> dict[str, Any]:
    t0, seen = time.perf_counter(), None
    while True:
        response = client.get(path)
        body: dict[str, Any] = response.json() if response.status_code == 200 else {}
        progress = body.get("progress")
        if TIMELINE is not None and progress is not None:
            now = (progress["done"], progress["pendingShards"], body["status"])
            if now != seen:
                seen = now
                TIMELINE.append(f"{time.perf_counter() - t0:6.2f} s: done {now[0]}, "
                                f"pending shards {now[1]}, {now[2]}")  # fmt: skip
        if body and done(body):
            return body
        time.sleep(interval)


def _print_timeline() -> None:
    if TIMELINE:
        print("\n".join(f"  {line}" for line in TIMELINE))
        TIMELINE.clear()


def prepared_close(data_dir: Path, job_id: str) -> np.ndarray:
    matches = list(data_dir.rglob(f"prepared/{job_id}/close.bin"))
    if not matches:
        raise SystemExit(f"prepared close column of {job_id} not found under {data_dir}")
    return np.fromfile(matches[0], dtype="<f8")


def vectorbt_grid(close: np.ndarray, chunk: int = 0) -> tuple[float, int] | None:
    """vectorbt's time for the grid's indicators, signals, portfolios and Sharpe ratios;
    ``chunk`` > 0 simulates that many vectors per ``Portfolio.from_signals`` call."""
    if importlib.util.find_spec("vectorbt") is None:
        return None
    import pandas as pd
    import vectorbt as vbt

    series = pd.Series(close, index=pd.date_range("2026-01-01", periods=close.size, freq="1s"))
    fasts = list(range(5, 51, 5))
    slows = list(range(20, 201, 20))
    started = time.perf_counter()
    fast_ma = vbt.MA.run(series, window=fasts, short_name="fast")
    slow_ma = vbt.MA.run(series, window=slows, short_name="slow")
    columns = []
    for f in range(len(fasts)):
        for s in range(len(slows)):
            a = fast_ma.ma.iloc[:, f].to_numpy()
            b = slow_ma.ma.iloc[:, s].to_numpy()
            columns.append((a, b))
    step = chunk if chunk > 0 else len(columns)
    indexed = list(enumerate(columns))
    for at in range(0, len(indexed), step):
        part = indexed[at : at + step]
        entries = pd.DataFrame(
            {i: (a > b) & ~(np.roll(a, 1) > np.roll(b, 1)) for i, (a, b) in part},
            index=series.index,
        )
        exits = pd.DataFrame(
            {i: (a < b) & ~(np.roll(a, 1) < np.roll(b, 1)) for i, (a, b) in part},
            index=series.index,
        )
        portfolio = vbt.Portfolio.from_signals(
            series, entries, exits, fees=0.001, init_cash=100, freq="1s"
        )
        portfolio.sharpe_ratio()
    return time.perf_counter() - started, len(columns)


def prepare(client: httpx.Client, data_dir: Path, days: int, end: datetime, dense: bool) -> str:
    """Prepare ``days`` of sim 1 s klines up to ``end``; with ``dense``, fill them to a bar every
    second, upload that as a dataset and prepare it (``dense_dataset.py``). The prepare's job id."""
    global EXCHANGE
    start = end - timedelta(days=days)
    body = {
        "instrument": "BTC/USDT",
        "from": start.isoformat(),
        "to": end.isoformat(),
        "cadence": "1s",
    }
    t0 = time.perf_counter()
    job = client.post("/backtest/sim/kline/prepare", json=body).json()["jobId"]
    poll(
        client,
        f"/backtest/sim/kline/prepare/{job}",
        lambda b: b["status"] == "Completed",
    )
    print(f"prepare {days} days of 1 s klines: {time.perf_counter() - t0:.1f} s")
    if not dense:
        return job
    prepared = dense_dataset.prepare_dense(client, data_dir, job, start, end)
    EXCHANGE = "user"
    print(
        f"dense: {prepared_close(data_dir, prepared.job_id).size} bars prepared (sim "
        f"{prepared.sim_bars}, empty seconds filled flat; filled and written as parquet in "
        f"{prepared.build_s:.1f} s); dataset upload + ready + prepare at 1s: "
        f"{prepared.service_s:.1f} s"
    )
    return prepared.job_id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--vbt-fraction", type=float, default=0.1)
    parser.add_argument(
        "--vbt-chunk",
        type=int,
        default=0,
        help="vectors per vectorbt portfolio (0: all 100 at once); 10 lets --vbt-fraction 1 fit",
    )
    parser.add_argument(
        "--rss-vectors",
        type=int,
        default=0,
        help="then run a second grid of this many vectors (in tens) and print the peaks again",
    )
    parser.add_argument(
        "--warm-sweeps",
        type=int,
        default=0,
        help="then run this many more 100-vector grids (values shifted by 1, 2, ...) on the "
        "same, now warm, server and print each one's time and CPU",
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for the service (repeatable), e.g. BACKTESTD_ENGINE_COLUMN_CACHE_MB=0 "
        "to measure a feature off against on",
    )
    parser.add_argument(
        "--shards", type=int, default=0, help="shards per sweep (default 0: the service decides)"
    )
    parser.add_argument(
        "--poll-interval",
        type=float,
        default=0.05,
        help="seconds between two reads of a running sweep (default 0.05); each read of 100 "
        "rows costs the 2 cores server and client CPU, so a slower poll measured against the "
        "service's recorded end (state.endTime) shows what the polling itself costs",
    )
    parser.add_argument(
        "--pollute",
        type=int,
        default=0,
        metavar="N",
        help="after the warm sweeps, execute each of six other kline strategies N times on the "
        "same data (other users' backtests) and run the warm sweeps again: a host that served "
        "other strategies against the same hosts before",
    )
    parser.add_argument(
        "--handwritten",
        action="store_true",
        help="also time the grid as a hand-written numba loop over the same close prices "
        "(handwritten_sweep.py), the floor the warm sweeps are compared against",
    )
    parser.add_argument(
        "--dense",
        action="store_true",
        help="fill the sim range to a bar every second (2,592,000 bars in 30 days), upload it "
        "as a dataset, prepare it at 1s and run everything on that prepare",
    )
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="print how each sweep's progress moved while it was polled (every 50 ms)",
    )
    args = parser.parse_args()
    global TIMELINE, SHARDS, POLL_INTERVAL
    TIMELINE = [] if args.timeline else None
    SHARDS = args.shards
    POLL_INTERVAL = args.poll_interval
    warm_ends: list[float] = []
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp), extra_env=dict(kv.split("=", 1) for kv in args.server_env))
        server.start()
        try:
            token = server.token(server.create_key("bench", tier="elite"))
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as client:
                text = source("sma_cross_kline.java").encode()
                strategy_id = client.post("/strategy", content=text).json()["strategyId"]
                job = prepare(client, Path(tmp), args.days, end, args.dense)
                assert server.process is not None
                meter = CpuMeter(server.process.pid)
                load = os.getloadavg()[0]
                seconds, accepted, result = run_sweep(client, job, strategy_id, GRID)
                cpu, threads = meter.read()
                rows = result["leaderboard"]
                per_trial = sorted(r["runtimeMs"] for r in rows)
                _print_timeline()
                print(
                    f"backtestd sweep: {len(rows)} vectors in {seconds:.2f} s end to end "
                    f"({accepted['shards']} shards); per trial median "
                    f"{per_trial[len(per_trial) // 2]} ms; status {result['status']}"
                    f"{recorded(result)}"
                )
                print(f"  load average at submission {load:.1f}; the service used {cpu}")
                print(f"  engine hosts' CPU by thread: {threads}")
                path = (
                    f"/backtest/{EXCHANGE}/kline/executeSweep/{job}/{accepted['sweepId']}"
                    "?order=natural"
                )
                server_cpu = cpu_seconds(server.process.pid)[server.process.pid][1]
                latencies = []
                for _ in range(10):
                    t0 = time.perf_counter()
                    client.get(path).raise_for_status()
                    latencies.append(time.perf_counter() - t0)
                server_cpu = cpu_seconds(server.process.pid)[server.process.pid][1] - server_cpu
                print(
                    f"  reading the finished sweep: median {sorted(latencies)[5] * 1000:.0f} ms "
                    f"per GET, {server_cpu / 10 * 1000:.0f} ms of server CPU each"
                )
                print_peaks(f"after {len(rows)} vectors", server.process.pid)
                for shift in range(1, args.warm_sweeps + 1):
                    shifted = {
                        "fast": {**GRID["fast"], "from": 5 + shift, "to": 50 + shift},
                        "slow": {**GRID["slow"], "from": 20 + shift, "to": 200 + shift},
                    }
                    meter = CpuMeter(server.process.pid)
                    seconds, accepted, result = run_sweep(client, job, strategy_id, shifted)
                    cpu, threads = meter.read()
                    _print_timeline()
                    print(
                        f"warm sweep {shift}: {len(result['leaderboard'])} vectors in "
                        f"{seconds:.2f} s end to end{recorded(result)}; the service used {cpu}"
                    )
                    print(f"  engine hosts' CPU by thread: {threads}")
                    warm_ends.append(float(result.get("_recorded_s") or seconds))
                if warm_ends:
                    print(
                        f"warm sweeps, recorded ends: median {statistics.median(warm_ends):.2f} s, "
                        f"best {min(warm_ends):.2f} s, worst {max(warm_ends):.2f} s "
                        f"({len(warm_ends)} sweeps)"
                    )
                if args.pollute and warm_ends:
                    t0 = time.perf_counter()
                    pollute(client, job, args.pollute)
                    print(
                        f"other strategies: {len(POLLUTERS)} x {args.pollute} executes in "
                        f"{time.perf_counter() - t0:.1f} s"
                    )
                    polluted: list[float] = []
                    for shift in range(1, args.warm_sweeps + 1):
                        # grids not run before (no series computed ahead is reused)
                        shifted = {
                            "fast": {**GRID["fast"], "from": 5 + 9 + shift, "to": 59 + shift},
                            "slow": {**GRID["slow"], "from": 20 + 9 + shift, "to": 209 + shift},
                        }
                        meter = CpuMeter(server.process.pid)
                        seconds, _, result = run_sweep(client, job, strategy_id, shifted)
                        cpu, _ = meter.read()
                        print(f"after them, sweep {shift}{recorded(result)}; service used {cpu}")
                        polluted.append(float(result.get("_recorded_s") or seconds))
                    print(
                        f"the same sweeps after other strategies: median "
                        f"{statistics.median(polluted):.2f} s, "
                        f"{statistics.median(polluted) / statistics.median(warm_ends):.2f}x the "
                        "median before them"
                    )
                if args.rss_vectors:
                    slows = max(1, args.rss_vectors // 10)  # times the 10 fast values
                    step = max(1, round(180 / max(1, slows - 1)))
                    slow = {"from": 20, "to": 20 + step * (slows - 1), "step": step}
                    big = {**GRID, "slow": slow}
                    meter = CpuMeter(server.process.pid)
                    seconds, _, result = run_sweep(client, job, strategy_id, big)
                    cpu, _ = meter.read()
                    n = len(result["leaderboard"])
                    print(
                        f"second sweep: {n} vectors in {seconds:.2f} s (the service recorded its "
                        f"end {result.get('_recorded_s', float('nan')):.2f} s after submission); "
                        f"the service used {cpu}"
                    )
                    print_peaks(f"after {len(rows)} + {n} vectors", server.process.pid)
            close = prepared_close(Path(tmp), job)
            print(f"bars: {close.size}")
        finally:
            server.stop()
    if args.handwritten:
        floor = handwritten_sweep.timed(close)
        if floor is None:
            print("hand-written numba loop: numba not installed (uv sync --group bench)")
        else:
            best = min(floor)
            print(
                f"hand-written numba loop, same {close.size} bars, 100 vectors on "
                f"{os.cpu_count()} cores: {', '.join(f'{s:.3f}' for s in floor)} s "
                f"({best / (100 * close.size) * 1e9:.2f} ns per vector-bar)"
            )
            if warm_ends:
                print(
                    f"  warm sweep median / hand-written best: "
                    f"{statistics.median(warm_ends) / best:.1f}x"
                )
    part = close[: int(close.size * args.vbt_fraction)]
    measured = vectorbt_grid(part, args.vbt_chunk) if part.size else None
    if not part.size:
        print("vectorbt: not run (--vbt-fraction 0)")
    elif measured is None:
        print("vectorbt: not installed (uv sync --group bench --group dev)")
    else:
        vbt_s, combos = measured
        print(
            f"vectorbt: {combos} vectors on {part.size} bars ({args.vbt_fraction:.0%}"
            f"{f', {args.vbt_chunk} vectors a portfolio' if args.vbt_chunk else ''}) in "
            f"{vbt_s:.2f} s; peak RSS of this process "
            f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
        )


if __name__ == "__main__":
    main()
