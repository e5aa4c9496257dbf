"""Live runs (issue 28): push latency, capacity of one machine, and the kill -9 drill.

Everything runs against real ``backtestd serve`` processes (embedded Dask, one engine host JVM
per execution, SQLite), driven like users drive them: REST to register and start runs, a
``centrifuge-python`` subscriber on the channel. Strategy: ``live_every_bar.java`` (a hint and
an info signal on every bar), registered once per run with a distinct constant in it (one live
run per strategy). Sim 1-second klines are sparse (a bar every few seconds per instrument at
quiet hours), hence several instruments per run, or a faster market clock.

1. **Push latency** (server at the default market clock, rate 1, so market time is the wall
   clock): ``--latency-runs`` runs over all sim spot instruments, ``relay: true``, one
   subscriber. Per pushed signal: the subscriber's wall time at arrival minus the signal's
   ``emittedAtMs`` (the executor's clock when the signal was produced, before it is recorded):
   recording + the replica's poll of the record (``BACKTESTD_LIVE_POLL_SECONDS``, 0.05 s) + the
   push. p50 / p99 / max over ``--signals`` or more.
2. **Restart drill** (same server, default 10 s leases): one run with relay, a subscriber; the
   worker process holding its lease (read from the run's ``lease_owner``, checked to be a
   descendant of this server) is killed with ``kill -9``. Printed: seconds until the
   ``restart`` marker arrives on the channel, until a strategy signal follows it, the market
   seconds around the takeover without a recorded signal and the sim bars in them (the outage's
   bars are not recorded), and whether any ``signalId`` (or any bar's signal) repeats, in the
   record or on the channel.
3. **Capacity** (a second server, market clock sped up so the chosen instruments average about
   one 1-second bar per wall second): N runs (``--levels``) of one instrument each, all LIVE
   (one JVM per run: a first server on a 200x clock took every strategy through its sandbox
   once, so the measured runs start with an inherited gate). Once all are running, over
   ``--window`` wall seconds: CPU of the Dask worker processes and of
   their live engine host JVMs (psutil, % of one core), RSS per run, and whether executions
   keep up: bars recorded vs bars the sim history has in that market window (the same
   generator the feed reads), and how far behind the market clock each signal was produced
   (``emittedAtMs - eventTsMs``, in wall seconds). A level that does not keep up ends the
   climb.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_live.py`` (about 25 minutes on the
2-core machine; ``--skip-latency``, ``--skip-drill``, ``--skip-capacity`` leave parts out). A
script, not a test: it prints figures and never fails on them.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import centrifuge
import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.live import SIM_KLINE, LiveUser  # noqa: E402
from tests.support.server import LiveServer  # noqa: E402
from tests.support.strategies import source  # noqa: E402

LIVE_HEAP_MB = 128  # BACKTESTD_LIVE_HEAP_MB's default: how live engine hosts are told apart
HOUR_S = 3600


# --- the server and its processes ---------------------------------------------------------


def start_server(root: Path, name: str, env: dict[str, str]) -> LiveServer:
    server = LiveServer(
        root / name,
        extra_env={
            # Enough runs for the capacity climb on one elite account.
            "BACKTESTD_TIERS__ELITE__MAX_LIVE_RUNS": "500",
            "BACKTESTD_TIERS__ELITE__REQUESTS_PER_MINUTE": "100000",
            **env,
        },
    )
    server.start()
    return server


def ws_url(server: LiveServer) -> str:
    return server.base_url.replace("http://", "ws://").removesuffix("/v1") + (
        "/connection/websocket"
    )


def descendants(server: LiveServer) -> list[psutil.Process]:
    assert server.process is not None
    try:
        return list(psutil.Process(server.process.pid).children(recursive=True))
    except psutil.NoSuchProcess:
        return []


def role(process: psutil.Process) -> str:
    """``live-jvm`` (a live engine host), ``jvm`` (the compile/backtest pool), ``worker``."""
    try:
        command = " ".join(process.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return "gone"
    if "java" in process.name() or "HostMain" in command:
        return "live-jvm" if f"-Xmx{LIVE_HEAP_MB}m" in command else "jvm"
    return "worker"


@dataclass
class Usage:
    """CPU seconds and RSS of the server's processes by role, at one moment."""

    wall: float
    cpu: dict[int, tuple[str, float]]
    rss: dict[str, int]
    count: dict[str, int]

    @classmethod
    def take(cls, server: LiveServer) -> Usage:
        cpu: dict[int, tuple[str, float]] = {}
        rss: dict[str, int] = {}
        count: dict[str, int] = {}
        assert server.process is not None
        processes = [psutil.Process(server.process.pid), *descendants(server)]
        for process in processes:
            try:
                kind = "api" if process.pid == server.process.pid else role(process)
                times = process.cpu_times()
                memory = process.memory_info().rss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            cpu[process.pid] = (kind, times.user + times.system)
            rss[kind] = rss.get(kind, 0) + memory
            count[kind] = count.get(kind, 0) + 1
        return cls(time.monotonic(), cpu, rss, count)

    def cpu_percent_since(self, before: Usage) -> dict[str, float]:
        """% of one core per role over the interval (processes started in it count whole)."""
        span = self.wall - before.wall
        out: dict[str, float] = {}
        for pid, (kind, seconds) in self.cpu.items():
            earlier = before.cpu.get(pid, (kind, 0.0))[1]
            out[kind] = out.get(kind, 0.0) + max(seconds - earlier, 0.0)
        return {kind: 100 * seconds / span for kind, seconds in out.items()}


# --- users, strategies, runs --------------------------------------------------------------


class Strategies:
    """Distinct registrations of ``live_every_bar.java`` (one live run per strategy)."""

    def __init__(self, user: LiveUser) -> None:
        self.user = user
        self.ids: list[str] = []

    def first(self, count: int) -> list[str]:
        base = source("live_every_bar.java")
        while len(self.ids) < count:
            marker = f'private static final String BENCH = "bench-{len(self.ids)}";'
            variant = base.replace("private int commands;", f"private int commands;\n    {marker}")
            response = self.user.client.post(
                "/strategy", content=variant, headers={"Content-Type": "text/plain"}
            )
            assert response.status_code == 200, response.text
            strategy_id = str(response.json()["strategyId"])
            assert strategy_id not in self.ids, "two variants registered as one strategy"
            self.ids.append(strategy_id)
        return self.ids[:count]


def start_run(user: LiveUser, strategy_id: str, instruments: list[str], **body: Any) -> str:
    payload = {
        "sources": [{**SIM_KLINE, "instruments": instruments}],
        "sandboxMinutes": 5,
        **body,
    }
    response = user.client.post(f"/strategy/{strategy_id}/live", json=payload)
    assert response.status_code == 201, response.text
    return str(response.json()["runId"])


def wait_all(
    user: LiveUser, run_ids: Iterable[str], done: Callable[[dict[str, Any]], bool], timeout: float
) -> tuple[bool, dict[str, dict[str, Any]]]:
    deadline = time.monotonic() + timeout
    while True:
        runs = {run_id: user.run(run_id) for run_id in run_ids}
        if all(done(r) for r in runs.values()) or time.monotonic() > deadline:
            return all(done(r) for r in runs.values()), runs
        time.sleep(1.0)


def stop_all(user: LiveUser, strategy_ids: Iterable[str], run_ids: Iterable[str]) -> None:
    for strategy_id in strategy_ids:
        user.client.delete(f"/strategy/{strategy_id}/live")
    wait_all(user, run_ids, lambda r: r["state"] in ("STOPPED", "FAILED"), timeout=60)


def sim_instruments(server: LiveServer) -> list[str]:
    """The sim exchange's spot instruments (``GET /exchange/sim/instruments``)."""
    listed = httpx.get(f"{server.base_url}/exchange/sim/instruments", timeout=30)
    assert listed.status_code == 200, listed.text
    return [str(i["symbol"]) for i in listed.json()["data"]]


def quantiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    if not ordered:
        return (math.nan, math.nan, math.nan)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return statistics.median(ordered), p99, ordered[-1]


# --- the channel --------------------------------------------------------------------------


@dataclass
class Arrivals:
    """What one subscriber received: (wall ms at arrival, publication data)."""

    items: list[tuple[float, dict[str, Any]]] = field(default_factory=list)


async def subscribe(
    server: LiveServer, user: LiveUser, run_ids: list[str], arrivals: Arrivals
) -> centrifuge.Client:
    token = user.client.post("/live/token").json()["token"]
    client = centrifuge.Client(ws_url(server), token=token)

    class Handler(centrifuge.SubscriptionEventHandler):
        async def on_publication(self, ctx: centrifuge.PublicationContext) -> None:
            arrivals.items.append((time.time() * 1000, ctx.pub.data))

    await client.connect()
    for run_id in run_ids:
        await client.new_subscription(f"sig:{run_id}", Handler()).subscribe()
    return client


# --- 1. push latency ----------------------------------------------------------------------


def measure_latency(
    server: LiveServer, user: LiveUser, strategies: Strategies, runs: int, want: int
) -> dict[str, Any]:
    instruments = sim_instruments(server)
    chosen = strategies.first(runs)
    run_ids = [start_run(user, s, instruments, relay=True, warmFrom=0) for s in chosen]
    ok, _ = wait_all(user, run_ids, lambda r: r["state"] == "RUNNING", timeout=180)
    assert ok, "the latency runs never started"

    async def watch() -> Arrivals:
        arrivals = Arrivals()
        client = await subscribe(server, user, run_ids, arrivals)
        deadline = time.monotonic() + max(600.0, want * 2.0)
        while len(arrivals.items) < want and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        await client.disconnect()
        return arrivals

    started = time.monotonic()
    arrivals = asyncio.run(watch())
    seconds = time.monotonic() - started
    latencies = [at - data["emittedAtMs"] for at, data in arrivals.items]
    stop_all(user, chosen, run_ids)
    p50, p99, worst = quantiles(latencies)
    return {
        "runs": runs,
        "instruments": len(instruments),
        "signals": len(latencies),
        "seconds": seconds,
        "p50": p50,
        "p99": p99,
        "max": worst,
        "min": min(latencies) if latencies else math.nan,
    }


# --- 2. restart drill ---------------------------------------------------------------------


def lease_owner_pid(server: LiveServer, run_id: str) -> int | None:
    """The pid in the run's lease (``host:pid:nonce``). A benchmark may look inside the
    database; the tests find the worker by its engine host JVMs instead."""
    path = server.data_dir / "backtestd.sqlite3"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        row = connection.execute(
            "SELECT lease_owner FROM live_runs WHERE run_id = ?", (run_id,)
        ).fetchone()
    if not row or not row[0]:
        return None
    return int(str(row[0]).split(":")[1])


def seq_of(signal_body: dict[str, Any]) -> int:
    return int(str(signal_body["signalId"]).rsplit("-", 1)[1])


def restart_drill(
    server: LiveServer, user: LiveUser, strategies: Strategies, history: SimHistory
) -> dict[str, Any]:
    instruments = sim_instruments(server)
    strategy_id = strategies.first(len(strategies.ids) + 1)[-1]
    run_id = start_run(user, strategy_id, instruments, relay=True, sandbox=True)
    ok, _ = wait_all(user, [run_id], lambda r: r["state"] == "RUNNING", timeout=180)
    assert ok, "the drill run never started"

    async def drill() -> dict[str, Any]:
        arrivals = Arrivals()
        client = await subscribe(server, user, [run_id], arrivals)
        deadline = time.monotonic() + 120
        while len(arrivals.items) < 10 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        pid = lease_owner_pid(server, run_id)
        ours = {p.pid for p in descendants(server)}
        assert pid is not None, "the drill run has no lease"
        assert pid in ours, f"lease owner {pid} is not this server's worker"
        before = len(arrivals.items)
        os.kill(pid, signal.SIGKILL)
        killed = time.time() * 1000
        marker_at = flowing_at = None
        deadline = time.monotonic() + 120
        while flowing_at is None and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            for at, data in arrivals.items[before:]:
                if marker_at is None and data.get("kind") == "restart":
                    marker_at = at
                elif marker_at is not None and data["type"] != "marker":
                    flowing_at = at
                    break
        await asyncio.sleep(5)  # a little more traffic after the takeover
        await client.disconnect()
        pushed = [data for _, data in arrivals.items]
        return {
            "killed_pid": pid,
            "marker_s": (marker_at - killed) / 1000 if marker_at else math.nan,
            "flowing_s": (flowing_at - killed) / 1000 if flowing_at else math.nan,
            "pushed": pushed,
            "killed_at_ms": killed,
        }

    seen = asyncio.run(drill())
    recorded = user.signals(run_id)
    stop_all(user, [strategy_id], [run_id])
    ids = [s["signalId"] for s in recorded]
    pushed_ids = [s["signalId"] for s in seen["pushed"]]
    bars = [(s["eventTsMs"], s["digest"]) for s in recorded if s["type"] != "marker"]
    markers = [s for s in recorded if s.get("kind") == "restart"]
    # Bars of the outage: between the last bar recorded before the marker and the first after.
    marker_seq = seq_of(markers[0]) if markers else None
    hints = [s for s in recorded if s["type"] == "hint"]
    before = [s["eventTsMs"] for s in hints if marker_seq and seq_of(s) < marker_seq]
    after = [s["eventTsMs"] for s in hints if marker_seq and seq_of(s) > marker_seq]
    missed = math.nan
    outage_s = math.nan
    if before and after:
        start, end = max(before) // 1000 + 1, min(after) // 1000
        outage_s = end - start
        missed = sum(history.bars(i, start * 1000, end * 1000) for i in instruments)
    return {
        "killed_pid": seen["killed_pid"],
        "marker_s": seen["marker_s"],
        "flowing_s": seen["flowing_s"],
        "recorded": len(ids),
        "repeated_ids": len(ids) - len(set(ids)),
        "repeated_pushes": len(pushed_ids) - len(set(pushed_ids)),
        "repeated_bars": len(bars) - len(set(bars)),
        "markers": [m.get("data") for m in markers],
        "missed_bars": missed,
        "unrecorded_s": outage_s,
    }


# --- 3. capacity --------------------------------------------------------------------------


class SimHistory:
    """The sim exchange's 1-second klines, from the generator the live feed reads."""

    def __init__(self) -> None:
        from backtestd.domain.marketdata import DataType, Instrument, Segment
        from backtestd.marketdata.sources import build_sources
        from backtestd.settings import Settings

        self._source = build_sources(Settings())["sim"]
        self._kind = DataType("kline")
        self._instrument = Instrument
        self._spot = Segment.SPOT
        self._hours: dict[tuple[str, int], list[int]] = {}

    def seconds(self, symbol: str, hour: int) -> list[int]:
        """Epoch seconds that have a bar in this hour."""
        key = (symbol, hour)
        if key not in self._hours:
            from backtestd.domain.marketdata import HOUR_MS, hour_from_ms
            from backtestd.marketdata.live.history import SecondRows

            instrument = self._instrument.parse(symbol)
            frame = self._source.generate(instrument, self._kind.kind, hour_from_ms(hour * HOUR_MS))
            rows = SecondRows.of(frame, self._kind)
            updates = rows.updates(instrument, self._kind, hour * HOUR_S, (hour + 1) * HOUR_S)
            self._hours[key] = [u.ts_ms // 1000 for u in updates]
        return self._hours[key]

    def bars(self, symbol: str, from_ms: int, to_ms: int) -> int:
        """Bars whose second starts in ``[from_ms, to_ms)``."""
        count = 0
        for hour in range(from_ms // 1000 // HOUR_S, to_ms // 1000 // HOUR_S + 1):
            count += sum(1 for s in self.seconds(symbol, hour) if from_ms <= s * 1000 < to_ms)
        return count

    def per_hour(self, symbol: str, from_ms: int, hours: int) -> float:
        first = from_ms // 1000 // HOUR_S
        return sum(len(self.seconds(symbol, h)) for h in range(first, first + hours)) / hours


@dataclass
class Clock:
    rate: float
    anchor_ms: int

    def market(self, wall_ms: float) -> int:
        return int(self.anchor_ms + (wall_ms - self.anchor_ms) * self.rate)


def choose_rate(history: SimHistory, symbols: list[str], now_ms: int) -> tuple[list[str], float]:
    """The denser half of the instruments, and the clock rate at which they average one bar
    per wall second over the next market hours (at that rate the climb crosses a few)."""
    density = {s: history.per_hour(s, now_ms, 4) for s in symbols}
    dense = sorted(symbols, key=lambda s: -density[s])[: max(1, len(symbols) // 2)]
    mean = statistics.mean(density[s] for s in dense)
    return dense, round(HOUR_S / mean, 1)


def window_figures(
    user: LiveUser,
    history: SimHistory,
    clock: Clock,
    runs: dict[str, str],
    wall_from_ms: float,
    wall_to_ms: float,
) -> dict[str, Any]:
    """Bars recorded vs in the history, and how far behind the market signals were made."""
    market_from = clock.market(wall_from_ms)
    # A bar is published once its second is over; leave a second of slack at the end.
    market_to = clock.market(wall_to_ms) - 1000 - int(clock.rate * 1000)
    expected = recorded = restarts = 0
    behind: list[float] = []
    for run_id, symbol in runs.items():
        signals = user.signals(run_id)
        restarts += sum(1 for s in signals if s.get("kind") == "restart")
        hints = {
            s["eventTsMs"] // 1000
            for s in signals
            if s["type"] == "hint" and market_from <= (s["eventTsMs"] // 1000) * 1000 < market_to
        }
        recorded += len(hints)
        expected += history.bars(symbol, market_from, market_to)
        behind += [
            (s["emittedAtMs"] - s["eventTsMs"]) / clock.rate / 1000
            for s in signals
            if s["type"] == "hint" and market_from <= s["eventTsMs"] < market_to
        ]
    market_seconds = (market_to - market_from) / 1000
    wall_seconds = market_seconds / clock.rate
    _, behind_p99, behind_max = quantiles(behind)
    return {
        "expected": expected,
        "recorded": recorded,
        "restarts": restarts,
        "updates_per_s": expected / wall_seconds if wall_seconds > 0 else math.nan,
        "behind_p50": statistics.median(behind) if behind else math.nan,
        "behind_p99": behind_p99,
        "behind_max": behind_max,
    }


def promote(user: LiveUser, strategy_ids: list[str], symbols: list[str], batch: int) -> int:
    """Runs each strategy once through its sandbox to LIVE (on a fast clock), so that the
    measured runs start LIVE with an inherited gate: one JVM per run, the steady state."""
    promoted = 0
    for first in range(0, len(strategy_ids), batch):
        chosen = strategy_ids[first : first + batch]
        runs = [
            start_run(user, s, [symbols[i % len(symbols)]], warmFrom=0)
            for i, s in enumerate(chosen)
        ]
        _, states = wait_all(
            user, runs, lambda r: r["stage"] == "LIVE" or r["state"] == "FAILED", timeout=300
        )
        promoted += sum(1 for r in states.values() if r["stage"] == "LIVE")
        stop_all(user, chosen, runs)
    return promoted


def measure_level(
    server: LiveServer,
    user: LiveUser,
    strategies: Strategies,
    history: SimHistory,
    clock: Clock,
    symbols: list[str],
    count: int,
    window_s: float,
    baseline: Usage,
) -> dict[str, Any]:
    chosen = strategies.first(count)
    log_from = server.log_path.stat().st_size
    started = time.monotonic()
    runs = {
        start_run(user, s, [symbols[i % len(symbols)]], warmFrom=0): symbols[i % len(symbols)]
        for i, s in enumerate(chosen)
    }
    _, states = wait_all(user, runs, lambda r: r["state"] != "STARTING", timeout=600)
    ok = all(r["state"] == "RUNNING" for r in states.values())
    running_s = time.monotonic() - started
    time.sleep(5)  # past the JVMs' start
    before = Usage.take(server)
    wall_from = time.time() * 1000
    time.sleep(window_s)
    after = Usage.take(server)
    wall_to = time.time() * 1000
    cpu = after.cpu_percent_since(before)
    states = {run_id: user.run(run_id) for run_id in runs}
    stages = [r["stage"] for r in states.values()]
    kept = window_figures(user, history, clock, runs, wall_from, wall_to)
    own_rss = after.rss.get("live-jvm", 0) + after.rss.get("worker", 0)
    base_rss = baseline.rss.get("live-jvm", 0) + baseline.rss.get("worker", 0)
    jvms = after.count.get("live-jvm", 0)
    with server.log_path.open("rb") as log:
        log.seek(log_from)
        lines = log.read().decode(errors="replace").splitlines()
    lost = sum(1 for line in lines if "lost the lease" in line)
    ticks = sum(1 for line in lines if "tick failed" in line)
    failed = sum(1 for r in states.values() if r["state"] != "RUNNING")
    stop_all(user, chosen, runs)
    return {
        "runs": count,
        "stages": f"{stages.count('SANDBOX')}/{stages.count('LIVE')}",
        "all_running": ok,
        "running_after_s": running_s,
        "live_jvms": jvms,
        "lost_leases": lost,
        "failed_ticks": ticks,
        "not_running": failed,
        "cpu_workers": cpu.get("worker", 0.0),
        "cpu_jvms": cpu.get("live-jvm", 0.0),
        "cpu_api": cpu.get("api", 0.0),
        "rss_per_run_mib": (own_rss - base_rss) / count / 2**20,
        "rss_per_jvm_mib": after.rss.get("live-jvm", 0) / max(jvms, 1) / 2**20,
        **kept,
    }


def keeps_up(row: dict[str, Any]) -> bool:
    return bool(
        row["all_running"] and row["recorded"] >= 0.98 * row["expected"] and row["behind_p99"] < 2.0
    )


# --- main ---------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency-runs", type=int, default=4)
    parser.add_argument("--signals", type=int, default=300)
    parser.add_argument("--levels", default="5,10,20,40,80")
    parser.add_argument("--window", type=float, default=30.0, help="wall seconds per measure")
    parser.add_argument("--rate", type=float, default=0.0, help="capacity clock rate (0: auto)")
    parser.add_argument("--keep", default="", help="a directory for the servers' data and logs")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--skip-drill", action="store_true")
    parser.add_argument("--skip-capacity", action="store_true")
    args = parser.parse_args()
    print(f"bench_live {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        if not (args.skip_latency and args.skip_drill):
            server = start_server(root, "rate1", {})
            try:
                user = LiveUser(server, "bench-live")
                strategies = Strategies(user)
                if not args.skip_latency:
                    lat = measure_latency(server, user, strategies, args.latency_runs, args.signals)
                    print(
                        f"\n== push latency (clock rate 1; {lat['runs']} runs x "
                        f"{lat['instruments']} instruments, {lat['signals']} signals in "
                        f"{lat['seconds']:.0f} s) ==\n"
                        f"emittedAtMs -> centrifuge-python subscriber: p50 {lat['p50']:.0f} ms, "
                        f"p99 {lat['p99']:.0f} ms, max {lat['max']:.0f} ms "
                        f"(min {lat['min']:.0f} ms)"
                    )
                if not args.skip_drill:
                    drill = restart_drill(server, user, strategies, SimHistory())
                    print(
                        "\n== restart drill (kill -9 of the worker holding the lease; "
                        "leases 10 s) ==\n"
                        f"restart marker on the channel after {drill['marker_s']:.1f} s, "
                        f"signals flowing again after {drill['flowing_s']:.1f} s; "
                        f"market seconds with no signal recorded around the takeover "
                        f"{drill['unrecorded_s']}, in which the history has "
                        f"{drill['missed_bars']} bars; "
                        f"marker data {drill['markers']}; {drill['recorded']} recorded, "
                        f"repeated signalIds {drill['repeated_ids']}, repeated pushes "
                        f"{drill['repeated_pushes']}, bars recorded twice "
                        f"{drill['repeated_bars']}"
                    )
            finally:
                server.stop()
        if not args.skip_capacity:
            capacity(root, args)


def capacity(root: Path, args: argparse.Namespace) -> None:
    history = SimHistory()
    levels = [int(x) for x in args.levels.split(",")]
    anchor = int(time.time() * 1000)
    data = root / "capacity"
    # A first server on a fast clock takes every strategy through its sandbox once.
    fast = start_server(root, "capacity", {"BACKTESTD_LIVE_CLOCK_RATE": "200"})
    try:
        symbols = sim_instruments(fast)
        dense, rate = choose_rate(history, symbols, anchor)
        user = LiveUser(fast, "bench-capacity")
        strategies = Strategies(user)
        ids = strategies.first(max(levels))
        started = time.monotonic()
        promoted = promote(user, ids, dense, batch=10)
        print(
            f"\n(capacity: {promoted}/{len(ids)} strategies promoted on a 200x clock in "
            f"{time.monotonic() - started:.0f} s, so the measured runs start LIVE)"
        )
    finally:
        fast.stop()
    rate = args.rate or rate
    clock = Clock(rate, anchor)
    env = {
        "BACKTESTD_LIVE_CLOCK_RATE": str(rate),
        "BACKTESTD_LIVE_CLOCK_ANCHOR_MS": str(anchor),
    }
    server = start_server(root, data.name, env)
    try:
        user = LiveUser(server, "bench-capacity")
        strategies.user = user
        time.sleep(5)
        baseline = Usage.take(server)
        print(
            f"\n== capacity (clock rate {rate}: about one 1-second bar per wall second per run; "
            f"one instrument per run from {dense}; window {args.window:.0f} s; "
            f"{baseline.count.get('worker', 0)} worker processes, baseline RSS "
            f"{baseline.rss.get('worker', 0) / 2**20:.0f} MiB) =="
        )
        print(
            f"{'runs':>4} {'sbx/live':>8} {'JVMs':>4} {'upd/s':>6} {'bars rec/exp':>13} "
            f"{'behind p50/p99/max s':>21} {'CPU% wrk':>8} {'CPU% JVM':>8} {'CPU% api':>8} "
            f"{'RSS/run MiB':>11} {'RSS/JVM':>7}  restarts, lost leases, failed ticks, not RUNNING"
        )
        for count in levels:
            row = measure_level(
                server, user, strategies, history, clock, dense, count, args.window, baseline
            )
            print(
                f"{row['runs']:>4} {row['stages']:>8} {row['live_jvms']:>4} "
                f"{row['updates_per_s']:>6.1f} {row['recorded']:>6}/{row['expected']:<6} "
                f"{row['behind_p50']:>6.2f}/{row['behind_p99']:>5.2f}/{row['behind_max']:>6.2f}   "
                f"{row['cpu_workers']:>8.0f} {row['cpu_jvms']:>8.0f} {row['cpu_api']:>8.0f} "
                f"{row['rss_per_run_mib']:>11.0f} {row['rss_per_jvm_mib']:>7.0f}  "
                f"{row['restarts']}, {row['lost_leases']}, {row['failed_ticks']}, "
                f"{row['not_running']}" + ("" if keeps_up(row) else "  <- does not keep up"),
                flush=True,
            )
            if not keeps_up(row):
                break
    finally:
        server.stop()
    print(f"load average at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
