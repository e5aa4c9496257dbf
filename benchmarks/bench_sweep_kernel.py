"""Sweep-kernel benchmark: 100 SMA(fast)/SMA(slow) vectors through the compiled kernel.

The per-trial path of a sweep shard without the engine host: 2,592,000 one-second prices
(30 days, a seeded geometric random walk) are loaded once; for each of the 100 vectors of the
grid fast 5..50 step 5 x slow 20..200 step 20 the crossover signals are computed in numpy
(long only: buy when SMA(fast) crosses above SMA(slow), sell when it crosses below, at that
second's price) and fed to ``run_kernel`` + ``daily_ratios`` (fee 0.1 %, equity grid 1 s), the
same two calls ``simulate``/``compute_metrics`` make for ``execute``. Reported: the cold
first call (JIT compile, or cache load), the kernel-only and the signals+kernel seconds for the
100 vectors, and the peak RSS after 10 and after 100 vectors (it must stay flat).

``--vbt-fraction F`` also runs vectorbt (``bench`` dependency group) on the first fraction F of
the prices with the same signals, as one ``Portfolio.from_signals`` over all 100 columns, and
reports its seconds and peak RSS (measured at 157 s / 7.1 GB on the full data; 0.1 keeps it
to about 1 GB). Run: ``.venv/bin/python benchmarks/bench_sweep_kernel.py [--vbt-fraction 0.1]``.
This is a script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import numpy.typing as npt

from backtestd.engine.kernel import new_instants, run_kernel
from backtestd.engine.kernel_metrics import daily_ratios
from backtestd.engine.metrics import DAY_MS
from backtestd.engine.portfolio import PortfolioConfig, kernel_config, kernel_mode

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
N = 2_592_000
FEE = 0.001
FAST = list(range(5, 51, 5))
SLOW = list(range(20, 201, 20))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def prices(n: int, seed: int = 1) -> F64:
    rng = np.random.default_rng(seed)
    return 30_000.0 * np.exp(np.cumsum(rng.normal(0.0, 2e-4, n)))


def sma(x: F64, n: int) -> F64:
    c = np.cumsum(np.insert(x, 0, 0.0))
    out = np.full(x.shape[0], np.nan)
    out[n - 1 :] = (c[n:] - c[:-n]) / n
    return out


def crossings(close: F64, fast: int, slow: int) -> tuple[npt.NDArray[np.bool_], ...]:
    """Boolean entries/exits: the bar where fast - slow changes sign (both defined)."""
    spread = sma(close, fast) - sma(close, slow)
    above = spread > 0
    below = spread < 0
    entries = np.zeros(close.shape[0], dtype=np.bool_)
    exits = np.zeros(close.shape[0], dtype=np.bool_)
    entries[1:] = above[1:] & ~above[:-1] & ~np.isnan(spread[:-1])
    exits[1:] = below[1:] & ~below[:-1] & ~np.isnan(spread[:-1])
    return entries, exits


def signals(close: F64, ts: I64, fast: int, slow: int) -> tuple[I64, npt.NDArray[np.int8], F64]:
    entries, exits = crossings(close, fast, slow)
    idx = np.flatnonzero(entries | exits)
    side = np.where(entries[idx], 1, -1).astype(np.int8)
    return ts[idx], side, close[idx]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=N)
    ap.add_argument("--vbt-fraction", type=float, default=0.0)
    args = ap.parse_args()

    close = prices(args.rows)
    ts = np.arange(args.rows, dtype=np.int64) * 1_000
    span = (0, args.rows * 1_000, 1_000)  # from, to, grid step: the 1 s grid
    new = new_instants(ts, 0, 1_000)  # as Marks.cut leaves it, once for all vectors
    cfg = kernel_config(PortfolioConfig(buy_fee_rate=FEE, sell_fee_rate=FEE))
    mode = kernel_mode(PortfolioConfig())
    vectors = [(f, s) for f in FAST for s in SLOW]  # 100, as the grid
    print(f"rows {args.rows:,}, vectors {len(vectors)}, peak RSS after load {peak_rss_mb():.0f} MB")

    t0 = time.perf_counter()
    s = signals(close, ts, 10, 100)
    out = run_kernel(*s, ts, close, new, *span, DAY_MS, cfg, mode)
    daily_ratios(out[5])
    print(f"cold first trial (compile or cache load + run): {time.perf_counter() - t0:.3f} s")

    sig_s = kernel_s = 0.0
    rows = []
    rss_10 = 0.0
    for k, (fast, slow) in enumerate(vectors):
        t0 = time.perf_counter()
        s = signals(close, ts, fast, slow)
        t1 = time.perf_counter()
        _, _, n, _, _, daily, _, dd_pct, final, _ = run_kernel(
            *s, ts, close, new, *span, DAY_MS, cfg, mode
        )
        sharpe, _ = daily_ratios(daily)
        t2 = time.perf_counter()
        sig_s += t1 - t0
        kernel_s += t2 - t1
        rows.append((fast, slow, n, final - 100.0, sharpe, dd_pct))
        if k == 9:
            rss_10 = peak_rss_mb()
    print(f"100 vectors: kernel {kernel_s:.3f} s ({kernel_s * 10:.1f} ms/trial), "
          f"numpy signals {sig_s:.3f} s, total {kernel_s + sig_s:.3f} s")  # fmt: skip
    print(f"peak RSS after 10 vectors {rss_10:.0f} MB, after 100 {peak_rss_mb():.0f} MB")
    best = max(rows, key=lambda r: r[4])
    print(f"best by Sharpe: fast {best[0]} slow {best[1]} trades {best[2]} "
          f"pnl {best[3]:.4f} sharpe {best[4]:.3f} maxDd% {best[5]:.2f}")  # fmt: skip

    if args.vbt_fraction > 0:
        bench_vectorbt(close[: int(args.rows * args.vbt_fraction)], vectors)


def bench_vectorbt(close: F64, vectors: list[tuple[int, int]]) -> None:
    import pandas as pd
    import vectorbt as vbt

    index = pd.date_range("2024-01-01", periods=close.shape[0], freq="1s")
    series = pd.Series(close, index=index)
    t0 = time.perf_counter()
    ent = np.empty((close.shape[0], len(vectors)), dtype=np.bool_)
    ex = np.empty_like(ent)
    for j, (fast, slow) in enumerate(vectors):
        ent[:, j], ex[:, j] = crossings(close, fast, slow)
    pf = vbt.Portfolio.from_signals(
        series, pd.DataFrame(ent, index=index), pd.DataFrame(ex, index=index),
        fees=FEE, init_cash=100.0, freq="1s",
    )  # fmt: skip
    ret = pf.total_return()
    sharpe = pf.sharpe_ratio()
    dt = time.perf_counter() - t0
    print(f"vectorbt on {close.shape[0]:,} rows x {len(vectors)} vectors: {dt:.2f} s "
          f"(incl. numba compile), peak RSS {peak_rss_mb():.0f} MB; "
          f"best return {float(ret.max()):.4f}, "
          f"mean sharpe {float(sharpe.mean()):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
