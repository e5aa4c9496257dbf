"""Sweep-kernel A/B: this checkout's ``run_kernel`` against the one of a git ref, in one process.

What a sweep shard's worker runs per vector after the engine answered (``engine/kernel.py``,
``run_kernel``: signals -> trades -> the equity pass), without Python around it, on marks shaped
like the ``sim`` month: ``--days`` days of one-second bars where a fraction ``--keep`` of the
seconds has a bar (0.37, as the sim's BTC/USDT klines; 1 for dense data), a seeded random walk.
The signals are the issue's 100-vector SMA(fast)/SMA(slow) grid's crossings over those bars
(long only, fee 0.1 %, 1 s equity grid), about 17,000 a vector on the sparse month.

Both kernels run every vector in alternating order for ``--rounds`` rounds in the same process,
so a phase of the machine touches both alike; each round prints both sides' CPU milliseconds a
vector and the ratio, and the end the medians and the ratios' median and range. It also compares
every output of the two (trades, book, daily equity, drawdowns, final cash) bit for bit and says
whether they are identical; it never fails. The worker's allocator settings
(``jobs/worker_memory.py``) are applied first, as in a worker.

``--before-ref`` (default ``HEAD~1``) names the revision whose ``src/backtestd/engine/kernel.py``
is the ``before`` side, loaded from ``git show`` into a temporary directory (its numba cache
lives there: its first call compiles it). A kernel before ``Marks.m_new`` (no
``new_instants``) is called without the flags.

Run: ``.venv/bin/python benchmarks/bench_kernel_ab.py [--before-ref REV] [--keep 1] [--rounds 12]``.
A script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from backtestd.engine import kernel as kernel_after
from backtestd.engine.portfolio import PortfolioConfig, kernel_config, kernel_mode
from backtestd.jobs.worker_memory import keep_freed_memory
from bench_sweep_kernel import FAST, SLOW, signals

ROOT = Path(__file__).resolve().parents[1]
KERNEL = "src/backtestd/engine/kernel.py"
DAY_MS = 86_400_000
FROM_MS = 1_699_920_000_000  # a UTC midnight

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]
Signals = tuple[I64, I8, F64]


def load_kernel(ref: str, into: Path) -> ModuleType:
    """``kernel.py`` of ``ref`` as a module of its own (``kernel_before``)."""
    source = subprocess.run(
        ["git", "show", f"{ref}:{KERNEL}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    path = into / "kernel_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("kernel_before", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kernel_before"] = module
    spec.loader.exec_module(module)
    return module


def marks(days: int, keep: float) -> tuple[I64, F64]:
    """Close times and prices of the bars of ``days`` days where a fraction ``keep`` of the
    seconds has one (a kline's close time is its open plus 999 ms)."""
    seconds = days * 86_400
    rng = np.random.default_rng(1)
    kept = rng.random(seconds) < keep
    prices = 30_000.0 * np.exp(np.cumsum(rng.normal(0.0, 2e-4, seconds)))
    at = np.flatnonzero(kept)
    return (FROM_MS + at * 1_000 + 999).astype(np.int64), prices[kept]


def grid_signals(m_ts: I64, m_px: F64) -> list[Signals]:
    """The crossings of each vector of the grid over the marks, as ``bench_sweep_kernel`` finds
    them: buy where fast - slow turns positive, sell where it turns negative, at that close."""
    return [signals(m_px, m_ts, fast, slow) for fast in FAST for slow in SLOW]


class Side:
    """One kernel and how it is called."""

    def __init__(self, name: str, module: ModuleType, m_ts: I64, m_px: F64, to_ms: int) -> None:
        self.name = name
        self.module = module
        flags = getattr(module, "new_instants", None)
        self.head: tuple[Any, ...] = (m_ts, m_px) if flags is None else (
            m_ts, m_px, flags(m_ts, FROM_MS, 1_000),
        )  # fmt: skip
        self.tail = (FROM_MS, to_ms, 1_000, DAY_MS)
        cfg = PortfolioConfig(buy_fee_rate=0.001, sell_fee_rate=0.001)
        self.config = (kernel_config(cfg), kernel_mode(cfg))
        self.ms: list[float] = []

    def run(self, vectors: list[Signals]) -> list[tuple[Any, ...]]:
        return [self.module.run_kernel(*s, *self.head, *self.tail, *self.config) for s in vectors]

    def timed(self, vectors: list[Signals]) -> float:
        start = time.process_time()
        self.run(vectors)
        ms = (time.process_time() - start) * 1_000 / len(vectors)
        self.ms.append(ms)
        return ms


def meaningful(out: tuple[Any, ...]) -> list[Any]:
    """A kernel's answer without the unused trade rows past ``n_trades``."""
    n = out[2]
    return [out[0][:n], out[1][:n], *out[2:]]


def identical(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> str:
    for vector, (x, y) in enumerate(zip(a, b, strict=True)):
        for field, (u, v) in enumerate(zip(meaningful(x), meaningful(y), strict=True)):
            if isinstance(u, np.ndarray):
                same = u.shape == v.shape and u.tobytes() == v.tobytes()
            else:
                same = u == v or (u != u and v != v)
            if not same:
                return f"DIFFERENT (vector {vector}, output {field})"
    return f"IDENTICAL ({len(a)} vectors, every output bit for bit)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before-ref", default="HEAD~1")
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--keep", type=float, default=0.37)
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    keep_freed_memory()
    m_ts, m_px = marks(args.days, args.keep)
    vectors = grid_signals(m_ts, m_px)
    to_ms = FROM_MS + args.days * DAY_MS
    with tempfile.TemporaryDirectory() as tmp:
        old = load_kernel(args.before_ref, Path(tmp))
        before = Side(f"before ({args.before_ref})", old, m_ts, m_px, to_ms)
        after = Side("after (this checkout)", kernel_after, m_ts, m_px, to_ms)
        signals = sum(s[0].shape[0] for s in vectors) / len(vectors)
        print(f"{m_ts.shape[0]:,} marks, {len(vectors)} vectors, {signals:,.0f} signals a vector")
        print(f"outputs: {identical(before.run(vectors), after.run(vectors))}")
        for r in range(args.rounds):
            first, second = (before, after) if r % 2 == 0 else (after, before)
            first.timed(vectors)
            second.timed(vectors)
            print(
                f"  round {r + 1}: before {before.ms[-1]:.3f}, after {after.ms[-1]:.3f} ms a "
                f"vector; after/before {after.ms[-1] / before.ms[-1]:.3f}"
            )
    ratios = sorted(a / b for a, b in zip(after.ms, before.ms, strict=True))
    for side in (before, after):
        print(
            f"{side.name}: median {statistics.median(side.ms):.3f}, best {min(side.ms):.3f} ms "
            "of CPU a vector"
        )
    print(
        f"after/before: median {statistics.median(ratios):.3f} "
        f"(rounds {ratios[0]:.3f}-{ratios[-1]:.3f})"
    )


if __name__ == "__main__":
    main()
