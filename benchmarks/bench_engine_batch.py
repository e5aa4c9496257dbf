"""Engine-host batch benchmark: the JVM side of a sweep shard, old engine vs new, side by side.

What a shard does with the engine (``EnginePool`` + ``run_many``, 16 vectors a request, as
``jobs/handlers/sweep.py``), without the portfolio: the issue's 100-vector grid (SMA fast 5..50
step 5 x slow 20..200 step 20, ``tests/support/strategies/sma_cross_kline.java``) over about a
million one-second klines. Two engine hosts run it, ``before`` and ``after``, in alternating
order for ``--rounds`` rounds, so both see the same machine load (neither runs the JIT warm-up,
as in the service, unless ``--warm-up``); the first round of each runs on a fresh JVM (cold:
engine classes not yet compiled), later ones on the same, warm JVM.

Per side and round it prints the JVM's CPU seconds (user + system of the whole process, from
``/proc/<pid>/stat``: strategy threads, JIT compiler threads, GC, request handling), the sum
of the vectors' strategy-thread CPU (``cpu_ns`` of each result), the wall time, and the ratio
after/before. It also checks that every vector's signals (timestamps, sides and the bits of
the prices) are identical on both sides, and says so; it never fails.

``before`` is the engine jar of ``--before-ref`` (default ``main``), exported with
``git archive`` into a temporary directory and built there with its own ``jvm/build.sh``,
started with this checkout's ``HostConfig`` JVM flags (``--before-flags`` replaces them, e.g.
with ``BASELINE_FLAGS``, those of main at 46e9cd9: without
``-Dsun.reflect.inflationThreshold`` a batch cannot share one class loader, which costs the
``before`` side about 10 %); ``--before-jar`` takes a built jar instead. ``after`` is this
checkout's jar (``jvm/build.sh``) with this checkout's ``HostConfig``; ``--after-flags``
appends JVM flags to it (to measure a flag alone, run the same jar on both sides:
``--before-jar jvm/build/backtestd-engine.jar``). The strategy is compiled on a third,
short-lived host, as the API's host compiles it in the service: a side that ran javac would
carry javac's compiled code and profile into its rounds (with the same jar on both sides, the
side that compiled measured 6-8 % more JVM CPU a vector).

Data: the ``sim`` exchange's BTC/USDT 1 s klines of ``--sim-days`` days (default 30: 904,109
bars, a bar for each second with a trade, about 5 s to generate), or with ``--sim-days 0`` a
seeded random walk of ``--rows`` one-second bars.

``--contender`` runs a third host (this checkout's jar) on the same vectors the whole time, as
the other shard's host runs in a 2-shard sweep on two cores: the two sides then compete with it
for the cache and the memory bus, as in place (a change in the bytes a vector reads may show
only then: docs/benchmarks.md, "Only the columns a strategy reads").

Run: ``.venv/bin/python benchmarks/bench_engine_batch.py [--rounds 3] [--before-ref main]``.
A script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from io import BytesIO
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backtestd.domain.marketdata import DataKind, DataType, Instrument
from backtestd.strategy.jvm import EnginePool, HostConfig, RunRequest, RunResult, write_columns
from backtestd.strategy.jvm.host import HOST_MAIN_CLASS

ROOT = Path(__file__).resolve().parents[1]
STRATEGY = ROOT / "tests" / "support" / "strategies" / "sma_cross_kline.java"
INSTRUMENT = Instrument("BTC", "USDT")
FAST = range(5, 51, 5)
SLOW = range(20, 201, 20)
BATCH = 16  # jobs/handlers/sweep.py BATCH_VECTORS
BASELINE_FLAGS = (
    "-Xmx512m",
    "-XX:+UseSerialGC",
    "-XX:-UsePerfData",
    "-XX:MaxMetaspaceSize=256m",
    "-Dfile.encoding=UTF-8",
)
"""``HostConfig.argv`` of main at 46e9cd9 (before the jvm-perf branch), without ``-cp``: pass
them as ``--before-flags`` to measure a ref of that time as it ran."""


def current_flags() -> list[str]:
    """The JVM flags of this checkout's ``HostConfig`` (no warm-up, no caches given)."""
    argv = HostConfig().argv(Path("engine.jar"))
    return argv[1 : argv.index("-cp")]


@dataclass(frozen=True)
class FixedArgvConfig(HostConfig):
    """A host configuration whose java command line is given whole (the ``before`` side)."""

    flags: tuple[str, ...] = BASELINE_FLAGS

    def argv(self, jar: Path) -> list[str]:
        return [self.java, *self.flags, "-cp", str(jar), HOST_MAIN_CLASS]


@dataclass
class Side:
    """One engine under test and what it measured."""

    name: str
    pool: EnginePool
    startup_cpu_s: float = 0.0
    """JVM CPU before round 1: start, the compile request, and (``after``) the warm-up."""
    rounds: list[tuple[float, float, float]] = field(default_factory=list)
    """Per round: JVM process CPU s, strategy-thread CPU s (sum of cpu_ns), wall s."""
    client_cpu_s: list[float] = field(default_factory=list)
    """Per round: this Python process's CPU s (sending requests, reading and parsing answers)."""
    signals: list[list[RunResult]] = field(default_factory=list)


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def random_walk(rows: int, seed: int = 1) -> dict[str, npt.NDArray[np.generic]]:
    """``rows`` one-second bars of a seeded geometric random walk (closes), OHLC around it."""
    rng = np.random.default_rng(seed)
    close = 30_000.0 * np.exp(np.cumsum(rng.normal(0.0, 2e-4, rows)))
    open_ = np.concatenate(([close[0]], close[:-1]))
    wiggle = np.abs(rng.normal(0.0, 1e-4, rows)) * close
    ts = 1_700_000_000_000 + np.arange(rows, dtype=np.int64) * 1_000
    return {
        "ts": ts,
        "closeTs": ts + 999,
        "open": open_,
        "high": np.maximum(open_, close) + wiggle,
        "low": np.minimum(open_, close) - wiggle,
        "close": close,
        "volume": rng.exponential(1.0, rows),
    }


def sim_klines(days: int) -> dict[str, npt.NDArray[np.generic]]:
    """The sim exchange's BTC/USDT 1 s klines of ``days`` days (a bar per second with trades)."""
    from backtestd.marketdata.sim import SimExchange, klines_from_tickers

    start = datetime(2024, 1, 1, tzinfo=UTC)
    sim = SimExchange(coverage_start=start, seed=7)
    names = ("ts", "open", "high", "low", "close", "volume")
    parts: dict[str, list[npt.NDArray[np.generic]]] = {name: [] for name in names}
    for h in range(days * 24):
        klines = klines_from_tickers(
            sim.generate(INSTRUMENT, DataKind.TICKERS, start + timedelta(hours=h))
        )
        for name, values in parts.items():
            values.append(klines.columns[name])
    bars = {name: np.concatenate(values) for name, values in parts.items()}
    bars["closeTs"] = bars["ts"] + 999
    return bars


def build_ref_jar(ref: str, workdir: Path) -> Path:
    """The engine jar of git ``ref``, built from a ``git archive`` export (no worktree)."""
    tree = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "jvm"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(tree)) as tar:
        tar.extractall(workdir, filter="data")
    subprocess.run(["bash", str(workdir / "jvm" / "build.sh")], check=True, capture_output=True)
    return workdir / "jvm" / "build" / "backtestd-engine.jar"


def build_own_jar() -> Path:
    subprocess.run(["bash", str(ROOT / "jvm" / "build.sh")], check=True, capture_output=True)
    return ROOT / "jvm" / "build" / "backtestd-engine.jar"


def wait_for_warm_up(side: Side, timeout_s: float = 30.0) -> None:
    """Waits until the side's host reports its warm-up finished (a host without one: at once),
    as a worker's host has long finished it when the first sweep arrives."""
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        warm = side.pool.hosts[0].ping().get("warm_up")
        if warm is None or warm.get("state") != "running":
            if warm is not None:
                print(f"  {side.name}: warm-up {warm}")
                # The JIT's queue still holds the warm-up's last compilations; a worker's first
                # sweep comes seconds after its host started, so let them finish.
                time.sleep(1.0)
            return
        time.sleep(0.1)


def one_round(side: Side, request: RunRequest, vectors: list[dict[str, int]]) -> None:
    host = side.pool.hosts[0]
    host.start()
    pid = host.pid
    assert pid is not None
    cpu0 = process_cpu_s(pid)
    client0 = time.process_time()
    t0 = time.perf_counter()
    results: list[RunResult] = []
    strategy_ns = 0
    for at in range(0, len(vectors), BATCH):
        for outcome in side.pool.run_many(request, vectors[at : at + BATCH]):
            if not isinstance(outcome, RunResult):
                print(f"  {side.name}: a vector failed: {outcome!r}")
                continue
            results.append(outcome)
            strategy_ns += outcome.cpu_ns
    wall = time.perf_counter() - t0
    cpu = process_cpu_s(pid) - cpu0 if host.pid == pid else float("nan")
    side.rounds.append((cpu, strategy_ns / 1e9, wall))
    side.client_cpu_s.append(time.process_time() - client0)
    side.signals.append(results)


class Contender:
    """The other shard of a 2-shard sweep: batches of the same vectors on a third host (this
    checkout's jar), on a thread of its own, from :meth:`start` until :meth:`close`."""

    def __init__(self, jar: Path) -> None:
        self.pool = EnginePool(1, HostConfig(jar=jar, max_requests=1_000_000))
        self.stop = threading.Event()
        self.ran = 0
        self.thread: threading.Thread | None = None

    def start(self, request: RunRequest, vectors: list[dict[str, int]]) -> None:
        self.pool.start()
        self.thread = threading.Thread(target=self._run, args=(request, vectors), daemon=True)
        self.thread.start()
        time.sleep(5.0)  # past its first, cold batches

    def _run(self, request: RunRequest, vectors: list[dict[str, int]]) -> None:
        while not self.stop.is_set():
            for at in range(0, len(vectors), BATCH):
                if self.stop.is_set():
                    return
                self.ran += len(self.pool.run_many(request, vectors[at : at + BATCH]))

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=30)  # its batch in flight ends first
        self.pool.close()
        print(f"contender: a third host ran {self.ran} vectors beside the rounds")


def same_signals(a: list[RunResult], b: list[RunResult]) -> str | None:
    """None when every vector's signals are bit-identical, else what differs first."""
    if len(a) != len(b):
        return f"{len(a)} vs {len(b)} results"
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        if not (
            np.array_equal(x.signal_ts, y.signal_ts)
            and np.array_equal(x.signal_side, y.signal_side)
            and np.array_equal(x.signal_price.view(np.int64), y.signal_price.view(np.int64))
            and x.events == y.events
        ):
            return f"vector {k}: {x.signal_count} vs {y.signal_count} signals"
    return None


def report(before: Side | None, after: Side, vectors: int, warmed: bool) -> None:
    print("\nper round: JVM process CPU s | strategy-thread CPU s | wall s (100 vectors)")
    for r, (cpu, strat, wall) in enumerate(after.rounds):
        tag = "cold" if r == 0 else "warm"
        line = f"  round {r + 1} ({tag}):"
        if before is not None:
            bc, bs, bw = before.rounds[r]
            line += f" before {bc:6.2f} | {bs:6.2f} | {bw:6.2f};"
        line += f" after {cpu:6.2f} | {strat:6.2f} | {wall:6.2f}"
        if before is not None:
            line += f";  after/before CPU {cpu / before.rounds[r][0]:.2f}"
        print(line)
    for side in (before, after):
        if side is None:
            continue
        warm = side.rounds[1:] or side.rounds
        cpu = sum(c for c, _, _ in warm) / len(warm)
        strat = sum(s for _, s, _ in warm) / len(warm)
        print(
            f"{side.name}: warm mean {cpu / vectors * 1000:.1f} ms JVM CPU a vector "
            f"({strat / vectors * 1000:.1f} ms strategy thread); cold round "
            f"{side.rounds[0][0] / vectors * 1000:.1f} ms a vector; JVM CPU before round 1 "
            f"(start, compile{', warm-up' if side.name == 'after' and warmed else ''}) "
            f"{side.startup_cpu_s:.2f} s; client (Python) CPU "
            f"{sum(side.client_cpu_s) / len(side.client_cpu_s) / vectors * 1000:.2f} ms a vector"
        )
    if before is not None:
        verdicts = [same_signals(b, a) for b, a in zip(before.signals, after.signals, strict=True)]
        bad = [v for v in verdicts if v is not None]
        total = sum(len(s) for s in after.signals)
        signals = sum(r.signal_count for r in after.signals[0])
        print(
            f"signals: {'IDENTICAL' if not bad else 'DIFFERENT: ' + bad[0]} before vs after "
            f"({total} vector runs compared; {signals} signals in a round)"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--sim-days", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before-ref", default="main")
    ap.add_argument("--before-jar", type=Path)
    ap.add_argument("--before-flags", default=" ".join(current_flags()))
    ap.add_argument("--after-flags", default="")
    ap.add_argument("--no-before", action="store_true", help="run only this checkout's engine")
    ap.add_argument(
        "--warm-up",
        action="store_true",
        help="start the after host with its JIT warm-up (the service starts none: "
        "BACKTESTD_ENGINE_WARM_UP is off, and a warmed host ran 1.45-1.55x the CPU, so an A/B "
        "with it on one side only compares the warm-up)",
    )
    ap.add_argument(
        "--no-warm-up", action="store_true", help="no warm-up on the after host (the default)"
    )
    ap.add_argument(
        "--contender",
        action="store_true",
        help="run a third host (this jar) on the same vectors beside every round, as the other "
        "shard of a sweep",
    )
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-engine-batch-") as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        bars = sim_klines(args.sim_days) if args.sim_days else random_walk(args.rows)
        files = write_columns(work / "kline", DataType.KLINE, bars)
        rows = int(bars["ts"].shape[0])
        print(f"data: {rows:,} 1 s bars ({time.perf_counter() - t0:.1f} s to make)")
        after_jar = build_own_jar()
        before_jar = None
        if not args.no_before:
            before_jar = args.before_jar or build_ref_jar(args.before_ref, work / "before")
        after_cfg = HostConfig(
            jar=after_jar,
            max_requests=1_000_000,
            extra_jvm_args=tuple(args.after_flags.split()),
            warm_up=args.warm_up and not args.no_warm_up,
        )
        print(f"after: {after_jar}\n  {' '.join(after_cfg.argv(after_jar))}")
        sides: list[Side] = []
        if before_jar is not None:
            before_cfg = FixedArgvConfig(
                jar=before_jar, max_requests=1_000_000, flags=tuple(args.before_flags.split())
            )
            print(f"before: {before_jar} ({args.before_ref if not args.before_jar else 'given'})")
            print(f"  {' '.join(before_cfg.argv(before_jar)[:-3])}")
            sides.append(Side("before", EnginePool(1, before_cfg)))
        sides.append(Side("after", EnginePool(1, after_cfg)))
        rival = Contender(after_jar) if args.contender else None
        try:
            with EnginePool(1, HostConfig(jar=after_jar)) as compiler:  # neither side compiles
                compiled = compiler.compile(STRATEGY.read_text(encoding="utf-8"))
            if not compiled.ok or compiled.main_class is None:
                print(f"the strategy did not compile: {compiled.errors}")
                return
            request = RunRequest(
                class_files=compiled.class_files,
                main_class=compiled.main_class,
                kind=DataType.KLINE,
                columns=files,
                instrument=INSTRUMENT,
                cpu_limit_s=60.0,
            )
            vectors = [{"fast": f, "slow": s} for f in FAST for s in SLOW]
            for side in sides:
                side.pool.start()
            for side in sides:
                wait_for_warm_up(side)
                pid = side.pool.hosts[0].pid
                assert pid is not None
                side.startup_cpu_s = process_cpu_s(pid)
            if rival is not None:
                rival.start(request, vectors)
            for r in range(args.rounds):
                order = sides if r % 2 == 0 else sides[::-1]
                for side in order:
                    one_round(side, request, vectors)
                load = os.getloadavg()[0]
                print(f"round {r + 1} done (load average {load:.1f})", flush=True)
        finally:
            if rival is not None:
                rival.close()
            for side in sides:
                side.pool.close()
        before = sides[0] if len(sides) == 2 else None
        report(before, sides[-1], len(vectors), after_cfg.warm_up)


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # a benchmark script reports, it does not fail
        print(f"benchmark stopped: {exc!r}", file=sys.stderr)
