"""Engine host benchmark: compile latency and run throughput.

Measures, on a fresh engine host:

* compile latency of an EMA(9)/EMA(21) crossover window strategy: the first (cold) compile, then
  p50/p95 over warm compiles;
* run throughput (events per second) of that strategy over synthetic tickers: 86,400 ticks (one
  day at 1 s) and 10 million ticks, as the host's own feed-loop time and end to end (request,
  mapping, answer).

Run: ``.venv/bin/python benchmarks/bench_engine.py [--warm 30] [--ticks 86400 10000000]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import EngineHost, HostConfig, RunRequest, write_columns

EMA_CROSS = """\
package bench;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.CrossDetector;

public class EmaCross extends AbstractTickerStrategy {
    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().ema(9).ema(21)
                .window("ema9", WindowTime.s1, new Crossing(this, indicators));
    }

    public class Crossing extends AbstractWindowListener {
        private final CrossDetector cross = new CrossDetector();

        public Crossing(AbstractTickerStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (!indicators.getExisting("ema21").isReady()) {
                return;
            }
            CrossDetector.Cross c = cross.check(actual, indicators.getValue("ema21"));
            if (c.above()) {
                emitBuy(indicators.getValue("price"));
            } else if (c.below()) {
                emitSell(indicators.getValue("price"));
            }
        }
    }
}
"""


def emit(line: str = "") -> None:
    """Benchmarks report on stdout (library code never prints)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def synthetic_ticks(n: int, seed: int = 42) -> dict[str, np.ndarray]:
    """A random-walk ticker series at one tick per second."""
    rng = np.random.default_rng(seed)
    last = 30_000.0 * np.exp(np.cumsum(rng.normal(0.0, 2e-4, n)))
    spread = np.full(n, 0.5)
    return {
        "ts": 1_700_000_000_000 + np.arange(n, dtype=np.int64) * 1000,
        "bid": last - spread,
        "bidSize": rng.uniform(0.01, 3.0, n),
        "ask": last + spread,
        "askSize": rng.uniform(0.01, 3.0, n),
        "last": last,
        "volume": rng.uniform(0.0, 10.0, n),
    }


def bench_compile(host: EngineHost, warm: int) -> None:
    t0 = time.perf_counter()
    first = host.compile(EMA_CROSS)
    cold = time.perf_counter() - t0
    if not first.ok:
        errors = "\n".join(d.render() for d in first.errors)
        raise SystemExit(f"strategy did not compile:\n{errors}")
    samples = []
    for _ in range(warm):
        t0 = time.perf_counter()
        host.compile(EMA_CROSS)
        samples.append(time.perf_counter() - t0)
    emit("compile latency (EMA(9)/EMA(21) window strategy, round trip)")
    emit(f"  cold (first compile of a new host): {cold * 1000:8.1f} ms")
    emit(f"  warm p50: {percentile(samples, 50) * 1000:8.1f} ms  (n={warm})")
    emit(f"  warm p95: {percentile(samples, 95) * 1000:8.1f} ms")


def bench_run(host: EngineHost, ticks: int, workdir: Path) -> None:
    compiled = host.compile(EMA_CROSS)
    assert compiled.main_class is not None
    files = write_columns(workdir / f"t{ticks}", DataType.TICKER, synthetic_ticks(ticks))
    request = RunRequest(
        class_files=compiled.class_files,
        main_class=compiled.main_class,
        kind=DataType.TICKER,
        columns=files,
        instrument=Instrument("BTC", "USDT"),
        cpu_limit_s=600,
    )
    host.run(request)  # warm-up: JIT the feed loop and the indicators
    best_loop = float("inf")
    best_total = float("inf")
    result = None
    for _ in range(3):
        t0 = time.perf_counter()
        result = host.run(request)
        best_total = min(best_total, time.perf_counter() - t0)
        best_loop = min(best_loop, result.elapsed_ns / 1e9)
    assert result is not None
    emit(f"run throughput, {ticks:,} ticks ({result.signal_count} signals)")
    emit(f"  feed loop:  {ticks / best_loop / 1e6:8.2f} M events/s  ({best_loop * 1000:.0f} ms)")
    emit(f"  end to end: {ticks / best_total / 1e6:8.2f} M events/s  ({best_total * 1000:.0f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=int, default=30, help="warm compiles to sample")
    parser.add_argument("--ticks", type=int, nargs="*", default=[86_400, 10_000_000])
    parser.add_argument("--heap-mb", type=int, default=1024)
    args = parser.parse_args()
    config = HostConfig(heap_mb=args.heap_mb)
    host = EngineHost(config)
    t0 = time.perf_counter()
    handshake = host.start()
    started = time.perf_counter() - t0
    with host, tempfile.TemporaryDirectory() as tmp:
        emit(f"engine {handshake.engine_version}, Java {handshake.java_version}")
        emit(f"host start (JVM launch to handshake): {started * 1000:.0f} ms")
        bench_compile(host, args.warm)
        for n in args.ticks:
            bench_run(host, n, Path(tmp))


if __name__ == "__main__":
    main()
