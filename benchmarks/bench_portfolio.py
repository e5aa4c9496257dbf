"""Time the portfolio simulation and metrics on a month of one-second ticks.

Run with ``.venv/bin/python benchmarks/bench_portfolio.py``. The workload is 2.6 million mark
prices (a random walk, one per second, about 30 days) and about 10 000 alternating signals,
with a take-profit so that the mark scan runs too. It reports the best of several runs of
``simulate`` + ``compute_metrics`` + the equity-curve wire dict. This is a script, not a test,
because timings depend on the machine.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from backtestd.engine.equity_curve import build_equity_curve, equity_points
from backtestd.engine.metrics import compute_metrics
from backtestd.engine.portfolio import PortfolioConfig, simulate

N_MARKS = 2_600_000
N_SIGNALS = 10_000
FROM_MS = 1_700_000_000_000


def _workload(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    px_ts = FROM_MS + np.arange(N_MARKS, dtype=np.int64) * 1_000
    px = 30_000.0 * np.exp(np.cumsum(rng.normal(0.0, 2e-4, N_MARKS)))
    at = np.sort(rng.choice(N_MARKS, size=N_SIGNALS, replace=False))
    side = np.where(np.arange(N_SIGNALS) % 2 == 0, 1, -1).astype(np.int8)
    return {"sig_ts": px_ts[at], "sig_side": side, "sig_price": px[at], "px_ts": px_ts, "px": px}


def _run_once(data: dict[str, np.ndarray], config: PortfolioConfig) -> tuple[float, int]:
    start = time.perf_counter()
    result = simulate(
        data["sig_ts"],
        data["sig_side"],
        data["sig_price"],
        data["px_ts"],
        data["px"],
        from_ms=FROM_MS,
        to_ms=FROM_MS + N_MARKS * 1_000,
        grid_step_ms=60_000,
        config=config,
    )
    metrics = compute_metrics(result)
    build_equity_curve(*equity_points(result), resample_to=1_000)
    return time.perf_counter() - start, metrics.total_trades


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    data = _workload(args.seed)
    config = PortfolioConfig(percent_gain=0.5, multi_entry=True, percent_amount_to_lock=50.0)
    timings = []
    trades = 0
    for _ in range(args.repeat):
        seconds, trades = _run_once(data, config)
        timings.append(seconds)
    best = min(timings) * 1_000
    print(  # noqa: T201 - a benchmark script's output
        f"simulate+metrics+curve: {N_MARKS:,} marks, {N_SIGNALS:,} signals, {trades:,} trades: "
        f"best {best:.1f} ms of {args.repeat} (median {np.median(timings) * 1_000:.1f} ms)"
    )


if __name__ == "__main__":
    main()
