"""Execute benchmark: one EMA-crossover backtest in backtestd, vectorbt and backtesting.py.

All three frameworks run the same strategy on the same prices in one process run:

* **Data.** 30 days of BTC/USDT from the ``sim`` exchange, one hour at a time: the ticker frame
  (its rows are the raw tick count) and the 1 s kline frame derived from it with
  ``klines_from_tickers``, which is exactly what ``SimExchange.generate(..., KLINES, hour)``
  returns (it builds the same tickers and aggregates them), so each hour is generated once. The
  sim has a bar only for seconds with at least one tick; by default the empty seconds are filled
  with flat bars at the previous close (volume 0), which gives a regular 1 s grid of 2,592,000
  bars. ``--no-fill`` keeps only the sim's own bars. The price is the bar close.
* **backtestd.** The kline columns go to files with ``write_columns``; a Java
  ``AbstractKlineStrategy`` (EMA fast/slow of the close, spread = fast - slow, watched by a
  ``WindowTime.s1`` window, so it is evaluated after every 1 s bar: buy when the spread crosses
  above 0, sell when it crosses below) is compiled with ``EnginePool.compile`` and run with
  ``EnginePool.run``; then ``simulate`` (LONG, fee 0.001, grid 1 s) and ``compute_metrics``,
  as the ``execute`` job does. One cold run warms the JVM; the warm figures are best and
  median of ``--repeat`` runs. ``simulate``/``compute_metrics`` are the compiled numba kernels
  (``engine/kernel.py``); the cold run also pays their one-off cache load (about 1 s, or the
  JIT compile when the cache is empty), so the warm "portfolio + metrics" line is the
  per-execute cost.
* **vectorbt.** The same EMAs of the same close array, ``crossed_above``/``crossed_below``,
  ``Portfolio.from_signals(fees=0.001, init_cash=100, freq='1s')`` and ``stats()``. One run
  compiles numba; best and median of ``--repeat`` runs.
* **backtesting.py.** A ``Strategy`` with the same EMAs (``self.I``) and ``crossover``, run by
  ``Backtest(cash=100_000, commission=0.001, trade_on_close=True, finalize_trades=True)``.
  It steps bar by bar in Python, so it first runs on the first ``--bt-days`` days; when the
  linear extrapolation of that run fits in ``--bt-budget-s``, it then runs on all days (up to
  ``--repeat`` times, as many as fit), otherwise the full-period figure is the extrapolation,
  marked EXTRAPOLATED in the table.

EMA definition: backtestd's EMA is seeded with the SMA of the first n values (NaN before) and
then ``e += a * (x - e)``, ``a = 2 / (n + 1)``. The vectorbt and backtesting.py runs use the same
definition (pandas ``ewm(span=n, adjust=False)`` started from that SMA seed) so that all three
see the same crossings; the vectorbt default (``vbt.MA.run(ewm=True)``, seeded with the first
price) is reported for reference as well.

Needs the ``bench`` dependency group (vectorbt, backtesting):
``uv sync --group bench --group dev``, then ``.venv/bin/python benchmarks/bench_execute.py``.
This is a script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from backtestd.domain.marketdata import DataKind, DataType, Instrument
from backtestd.engine.metrics import Metrics, compute_metrics
from backtestd.engine.portfolio import ExecutionMode, PortfolioConfig, PortfolioResult, simulate
from backtestd.marketdata.sim import SimExchange, klines_from_tickers
from backtestd.strategy.jvm import EnginePool, HostConfig, RunRequest, RunResult, write_columns

if TYPE_CHECKING:
    import pandas as pd

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

BENCH_MODULES = ("pandas", "vectorbt", "backtesting")
INSTRUMENT = Instrument("BTC", "USDT")
SECOND_MS = 1_000
DAY_MS = 86_400_000
FEE = 0.001

EMA_CROSS_KLINE = """\
package bench;

import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.KlineInterval;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

public class EmaCrossKline extends AbstractKlineStrategy {
    @StrategyProperty(name = "fast", description = "fast EMA periods", defaultValue = "9")
    private int fast = 9;

    @StrategyProperty(name = "slow", description = "slow EMA periods", defaultValue = "21")
    private int slow = 21;

    @Override
    public KlineInterval getInterval() {
        return KlineInterval.s1;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        // A 1 s window over 1 s bars closes after every bar (a bar closes its window itself).
        indicators.addPrice().ema("fast", fast).ema("slow", slow).diff("spread", "fast", "slow")
            .window("spread", WindowTime.s1, new Listener(this, indicators));
    }

    class Listener extends AbstractWindowListener {
        Listener(AbstractKlineStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("price"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("price"));
            }
        }
    }
}
"""


def emit(line: str = "") -> None:
    print(line, flush=True)


def missing_bench_modules() -> list[str]:
    return [name for name in BENCH_MODULES if importlib.util.find_spec(name) is None]


@dataclass
class Timing:
    """Wall-clock samples in seconds."""

    samples: list[float] = field(default_factory=list)

    def add(self, seconds: float) -> None:
        self.samples.append(seconds)

    @property
    def best(self) -> float:
        return min(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


# -- data -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Market:
    """The kline columns every framework runs on (``RUN_COLUMNS[KLINE]``)."""

    bars: dict[str, np.ndarray]
    ticks: int
    sim_bars: int
    generate_s: float
    fill_s: float
    from_ms: int
    to_ms: int

    @property
    def rows(self) -> int:
        return int(self.bars["ts"].shape[0])


def generate_market(start: datetime, days: int, seed: int, fill: bool) -> Market:
    sim = SimExchange(coverage_start=start, seed=seed)
    t0 = time.perf_counter()
    ticks = 0
    names = ("ts", "open", "high", "low", "close", "volume")
    parts: dict[str, list[np.ndarray]] = {name: [] for name in names}
    for h in range(days * 24):
        tickers = sim.generate(INSTRUMENT, DataKind.TICKERS, start + timedelta(hours=h))
        ticks += tickers.rows
        klines = klines_from_tickers(tickers)  # == sim.generate(INSTRUMENT, DataKind.KLINES, ...)
        for name, values in parts.items():
            values.append(klines.columns[name])
    bars = {name: np.concatenate(values) for name, values in parts.items()}
    generate_s = time.perf_counter() - t0
    from_ms = int(start.timestamp() * 1000)
    to_ms = from_ms + days * DAY_MS
    sim_bars = int(bars["ts"].shape[0])
    t0 = time.perf_counter()
    if fill:
        bars = fill_seconds(bars, from_ms, to_ms)
    bars["closeTs"] = bars["ts"] + np.int64(SECOND_MS - 1)
    fill_s = time.perf_counter() - t0
    return Market(bars, ticks, sim_bars, generate_s, fill_s, from_ms, to_ms)


def fill_seconds(bars: dict[str, np.ndarray], from_ms: int, to_ms: int) -> dict[str, np.ndarray]:
    """One bar per second of ``[from_ms, to_ms)``: a second without a sim bar gets a flat bar
    at the previous close (the first bar's open before the first bar) with volume 0."""
    n = (to_ms - from_ms) // SECOND_MS
    pos = ((bars["ts"] - from_ms) // SECOND_MS).astype(np.intp)
    src = np.full(n, -1, dtype=np.intp)
    src[pos] = np.arange(pos.shape[0])
    have = src >= 0
    latest = np.maximum.accumulate(src)
    carried = np.where(latest >= 0, bars["close"][np.maximum(latest, 0)], bars["open"][0])
    take = np.maximum(src, 0)
    out: dict[str, np.ndarray] = {"ts": from_ms + np.arange(n, dtype=np.int64) * SECOND_MS}
    for name in ("open", "high", "low", "close"):
        out[name] = np.where(have, bars[name][take], carried)
    out["volume"] = np.where(have, bars["volume"][take], 0.0)
    return out


def ema(values: npt.ArrayLike, n: int) -> F64:
    """backtestd's EMA: NaN for the first n - 1 values, the SMA of the first n at index n - 1,
    then ``e += 2 / (n + 1) * (x - e)`` (pandas ``ewm(span=n, adjust=False)`` from that seed)."""
    import pandas as pd

    x = np.asarray(values, dtype=np.float64)
    seeded = x.copy()
    seeded[: n - 1] = np.nan
    seeded[n - 1] = sum(x[:n].tolist()) / n
    out: F64 = pd.Series(seeded).ewm(span=n, adjust=False).mean().to_numpy()
    return out


def reference_signals(close: F64, fast: int, slow: int) -> tuple[I64, I64]:
    """Bar indexes of the buys and sells the Java strategy should emit (same rule, numpy)."""
    spread = ema(close, fast) - ema(close, slow)
    prev, actual = spread[:-1], spread[1:]
    with np.errstate(invalid="ignore"):
        buys = np.flatnonzero((prev <= 0) & (actual > 0)) + 1
        sells = np.flatnonzero((prev >= 0) & (actual < 0)) + 1
    return buys, sells


# -- backtestd ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BacktestdReport:
    write_s: float
    start_s: float
    compile_s: float
    cold_run_s: float
    run: Timing
    loop: Timing
    portfolio: Timing
    total: Timing
    result: RunResult
    simulated: PortfolioResult
    metrics: Metrics


def execute_once(
    pool: EnginePool, request: RunRequest, market: Market
) -> tuple[float, float, RunResult, PortfolioResult, Metrics]:
    """One engine run plus the portfolio and metrics, as the ``execute`` job does them."""
    t0 = time.perf_counter()
    run = pool.run(request)
    t1 = time.perf_counter()
    px_ts = np.fromfile(request.columns["closeTs"], dtype="<i8")
    px = np.fromfile(request.columns["close"], dtype="<f8")
    trading = run.signal_side != 0
    portfolio = simulate(
        run.signal_ts[trading],
        run.signal_side[trading],
        run.signal_price[trading],
        px_ts,
        px,
        from_ms=market.from_ms,
        to_ms=market.to_ms,
        grid_step_ms=SECOND_MS,
        config=PortfolioConfig(mode=ExecutionMode.LONG, buy_fee_rate=FEE, sell_fee_rate=FEE),
    )
    metrics = compute_metrics(portfolio)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, run, portfolio, metrics


def bench_backtestd(market: Market, args: argparse.Namespace, workdir: Path) -> BacktestdReport:
    t0 = time.perf_counter()
    files = write_columns(workdir / "kline", DataType.KLINE, market.bars)
    write_s = time.perf_counter() - t0
    with EnginePool(1, HostConfig(heap_mb=args.heap_mb)) as pool:
        t0 = time.perf_counter()
        pool.start()
        start_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        compiled = pool.compile(EMA_CROSS_KLINE)
        compile_s = time.perf_counter() - t0
        if not compiled.ok or compiled.main_class is None:
            errors = "\n".join(d.render() for d in compiled.errors)
            raise SystemExit(f"the kline EMA strategy did not compile:\n{errors}")
        request = RunRequest(
            class_files=compiled.class_files,
            main_class=compiled.main_class,
            kind=DataType.KLINE,
            columns=files,
            instrument=INSTRUMENT,
            params={"fast": args.fast, "slow": args.slow},
            cpu_limit_s=600,
        )
        cold_s = execute_once(pool, request, market)[0]  # JIT, page cache
        run_t, loop_t, portfolio_t, total_t = Timing(), Timing(), Timing(), Timing()
        for _ in range(args.repeat):
            run_s, portfolio_s, run, portfolio, metrics = execute_once(pool, request, market)
            run_t.add(run_s)
            loop_t.add(run.elapsed_ns / 1e9)
            portfolio_t.add(portfolio_s)
            total_t.add(run_s + portfolio_s)
    return BacktestdReport(
        write_s, start_s, compile_s, cold_s, run_t, loop_t, portfolio_t, total_t,
        run, portfolio, metrics,
    )  # fmt: skip


# -- vectorbt -------------------------------------------------------------------------------


@dataclass(frozen=True)
class VbtOutcome:
    entries: int
    exits: int
    trades: int
    total_return_pct: float


def naive_utc_index(market: Market, rows: int) -> pd.DatetimeIndex:
    """Bar open times as a tz-naive (UTC) index. With a tz-aware index vectorbt 1.2 on pandas 3
    converts the index to Timestamp objects whenever it wraps a result: 100x slower."""
    import pandas as pd

    return pd.DatetimeIndex(pd.to_datetime(market.bars["ts"][:rows], unit="ms"))


def price_series(market: Market, rows: int | None = None) -> pd.Series:
    import pandas as pd

    end = market.rows if rows is None else rows
    return pd.Series(market.bars["close"][:end], index=naive_utc_index(market, end), name="close")


def vbt_backtest(close: pd.Series, fast: int, slow: int, seeding: str = "sma") -> VbtOutcome:
    """Indicators, signals, portfolio and stats: the part that is timed."""
    import pandas as pd
    import vectorbt as vbt

    if seeding == "sma":
        fast_ma = pd.Series(ema(close.to_numpy(), fast), index=close.index)
        slow_ma = pd.Series(ema(close.to_numpy(), slow), index=close.index)
    else:  # vectorbt's own EMA: ewm(adjust=False) seeded with the first price
        mas = vbt.MA.run(close, [fast, slow], ewm=True, param_product=False)
        fast_ma = mas.ma.iloc[:, 0].rename(None)
        slow_ma = mas.ma.iloc[:, 1].rename(None)
    entries = fast_ma.vbt.crossed_above(slow_ma)
    exits = fast_ma.vbt.crossed_below(slow_ma)
    pf = vbt.Portfolio.from_signals(close, entries, exits, fees=FEE, init_cash=100.0, freq="1s")
    stats = pf.stats()
    return VbtOutcome(
        entries=int(entries.sum()),
        exits=int(exits.sum()),
        trades=int(stats["Total Trades"]),
        total_return_pct=float(stats["Total Return [%]"]),
    )


@dataclass(frozen=True)
class VbtReport:
    timing: Timing
    cold_s: float
    outcome: VbtOutcome
    native: VbtOutcome  # with vectorbt's own EMA (first-price seed), not timed


def bench_vectorbt(market: Market, args: argparse.Namespace) -> VbtReport:
    close = price_series(market)
    t0 = time.perf_counter()
    vbt_backtest(close, args.fast, args.slow)  # compiles (or loads) the numba kernels
    cold_s = time.perf_counter() - t0
    timing = Timing()
    outcome = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        outcome = vbt_backtest(close, args.fast, args.slow)
        timing.add(time.perf_counter() - t0)
    assert outcome is not None
    native = vbt_backtest(close, args.fast, args.slow, seeding="first")
    return VbtReport(timing, cold_s, outcome, native)


# -- backtesting.py -------------------------------------------------------------------------


@dataclass(frozen=True)
class BtOutcome:
    rows: int
    seconds: float
    trades: int
    crosses_up: int
    crosses_down: int
    return_pct: float
    canceled: int  # buy orders canceled for want of cash (whole-unit sizing)


def bt_strategy(fast: int, slow: int) -> type:
    from backtesting import Strategy
    from backtesting.lib import crossover

    class EmaCross(Strategy):  # type: ignore[misc]
        n_fast = fast
        n_slow = slow

        def init(self) -> None:
            self.fast = self.I(ema, self.data.Close, self.n_fast)
            self.slow = self.I(ema, self.data.Close, self.n_slow)
            self.crosses_up = 0
            self.crosses_down = 0

        def next(self) -> None:
            if crossover(self.fast, self.slow):
                self.crosses_up += 1
                if not self.position:
                    self.buy()
            elif crossover(self.slow, self.fast):
                self.crosses_down += 1
                self.position.close()

    return EmaCross


def bt_frame(market: Market, rows: int) -> pd.DataFrame:
    import pandas as pd

    b = market.bars
    return pd.DataFrame(
        {
            "Open": b["open"][:rows],
            "High": b["high"][:rows],
            "Low": b["low"][:rows],
            "Close": b["close"][:rows],
            "Volume": b["volume"][:rows],
        },
        index=naive_utc_index(market, rows),
    )


def bt_backtest(market: Market, rows: int, fast: int, slow: int) -> BtOutcome:
    from backtesting import Backtest

    data = bt_frame(market, rows)
    t0 = time.perf_counter()
    bt = Backtest(
        data,
        bt_strategy(fast, slow),
        cash=100_000,
        commission=FEE,
        trade_on_close=True,
        finalize_trades=True,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stats = bt.run()
    seconds = time.perf_counter() - t0
    canceled = sum("insufficient margin" in str(w.message) for w in caught)
    strategy = stats["_strategy"]
    return BtOutcome(
        rows=rows,
        seconds=seconds,
        trades=int(stats["# Trades"]),
        crosses_up=int(strategy.crosses_up),
        crosses_down=int(strategy.crosses_down),
        return_pct=float(stats["Return [%]"]),
        canceled=canceled,
    )


@dataclass(frozen=True)
class BtReport:
    subset: BtOutcome
    full: list[BtOutcome]
    estimate_s: float
    subset_vbt: VbtOutcome

    @property
    def timing(self) -> Timing:
        """Full-period seconds: measured runs, or the linear extrapolation of the subset."""
        return Timing([o.seconds for o in self.full] if self.full else [self.estimate_s])


def bench_backtesting(market: Market, args: argparse.Namespace) -> BtReport:
    end_ms = market.from_ms + args.bt_days * DAY_MS
    rows = min(market.rows, int(np.searchsorted(market.bars["ts"], end_ms)))
    emit(f"backtesting.py: first {args.bt_days} days ({rows:,} bars) ...")
    subset = bt_backtest(market, rows, args.fast, args.slow)
    estimate = subset.seconds * market.rows / rows
    emit(f"  {subset.seconds:.1f} s; linear estimate for {market.rows:,} bars: {estimate:.0f} s")
    runs = min(args.repeat, int(args.bt_budget_s // estimate)) if estimate > 0 else args.repeat
    full = []
    for _ in range(runs):
        emit(f"  all {market.rows:,} bars ...")
        full.append(bt_backtest(market, market.rows, args.fast, args.slow))
        emit(f"  {full[-1].seconds:.1f} s")
    if not full:
        emit(f"  the estimate exceeds the {args.bt_budget_s:.0f} s budget: not run on all bars")
    subset_vbt = vbt_backtest(price_series(market, rows), args.fast, args.slow)
    return BtReport(subset, full, estimate, subset_vbt)


# -- report ---------------------------------------------------------------------------------


def check_signals(report: BacktestdReport, market: Market, fast: int, slow: int) -> str:
    run = report.result
    buys, sells = reference_signals(market.bars["close"], fast, slow)
    want = {(int(t), 1) for t in market.bars["closeTs"][buys]}
    want |= {(int(t), -1) for t in market.bars["closeTs"][sells]}
    got = set(zip(run.signal_ts.tolist(), run.signal_side.tolist(), strict=True))
    return (
        f"{len(got & want):,} of {len(got):,} engine signals equal the numpy recomputation "
        f"({len(want - got)} missing, {len(got - want)} extra)"
    )


def row(name: str, cells: tuple[str, ...], note: str = "") -> str:
    return f"{name:<22}" + "".join(f"{c:>10}" for c in cells) + f"  {note}"


def table_row(name: str, timing: Timing, base: float, counts: tuple[int, int], note: str) -> str:
    signals, trades = counts
    cells = (
        f"{timing.best:.3f}",
        f"{timing.median:.3f}",
        f"{timing.best / base:.1f}x",
        f"{signals:,}",
        f"{trades:,}",
    )
    return row(name, cells, note)


def print_data(market: Market, args: argparse.Namespace) -> None:
    emit(
        f"data: {args.days} days of BTC/USDT from the sim exchange (seed {args.seed}): "
        f"{market.ticks:,} ticks -> {market.sim_bars:,} sim 1 s bars"
    )
    emit(f"  generation (tickers + klines, {args.days * 24} hours): {market.generate_s:.2f} s")
    if args.fill:
        emit(
            f"  empty seconds filled with flat bars -> {market.rows:,} bars "
            f"({market.fill_s * 1000:.0f} ms)"
        )


def print_backtestd(r: BacktestdReport, market: Market) -> None:
    run, metrics, portfolio = r.result, r.metrics, r.simulated
    emit("backtestd")
    emit(
        f"  write_columns {r.write_s * 1000:.0f} ms, JVM start {r.start_s * 1000:.0f} ms, "
        f"compile {r.compile_s * 1000:.0f} ms, cold run {r.cold_run_s * 1000:.0f} ms"
    )
    emit(
        f"  engine run (round trip) best {r.run.best * 1000:.0f} ms, "
        f"median {r.run.median * 1000:.0f} ms; feed loop best {r.loop.best * 1000:.0f} ms"
    )
    emit(
        f"  portfolio + metrics      best {r.portfolio.best * 1000:.0f} ms, "
        f"median {r.portfolio.median * 1000:.0f} ms"
    )
    emit(
        f"  total execute            best {r.total.best * 1000:.0f} ms, "
        f"median {r.total.median * 1000:.0f} ms"
    )
    emit(
        "  each warm run, in order: "
        + ", ".join(f"{s * 1000:.0f}" for s in r.total.samples)
        + " ms"
    )
    emit(
        f"  {run.events:,} events, {run.events_per_second / 1e6:.1f} M events/s (feed loop), "
        f"{market.rows / r.run.best / 1e6:.1f} M bars/s (round trip)"
    )
    emit(
        f"  {run.signal_count:,} signals, {portfolio.trades.count:,} trades "
        f"({portfolio.ignored_signals} ignored signals), "
        f"PnL {metrics.pnl_total_percent:.2f} %"
    )


def print_table(
    market: Market, bd: BacktestdReport, vbt: VbtReport, bt: BtReport | None, ema_label: str
) -> None:
    base = bd.total.best
    emit()
    emit(f"one EMA({ema_label}) crossover backtest over {market.rows:,} 1 s bars, warm, seconds")
    emit(row("framework", ("best", "median", "vs bd", "signals", "trades"), "notes"))
    counts = (bd.result.signal_count, bd.simulated.trades.count)
    note = f"engine run + simulate + metrics; return {bd.metrics.pnl_total_percent:.2f} %"
    emit(table_row("backtestd (execute)", bd.total, base, counts, note))
    o = vbt.outcome
    note = f"EMAs + signals + from_signals + stats; return {o.total_return_pct:.2f} %"
    emit(table_row("vectorbt", vbt.timing, base, (o.entries + o.exits, o.trades), note))
    if bt is not None:
        if bt.full:
            f = bt.full[-1]
            note = f"{len(bt.full)} run(s) on all bars; return {f.return_pct:.2f} %"
            counts = (f.crosses_up + f.crosses_down, f.trades)
        else:
            s = bt.subset
            note = (
                f"EXTRAPOLATED linearly from {s.seconds:.1f} s on the first {s.rows:,} bars; "
                "counts are of those bars"
            )
            counts = (s.crosses_up + s.crosses_down, s.trades)
        emit(table_row("backtesting.py", bt.timing, base, counts, note))
    emit("vs bd = best time / backtestd's best total execute time (above 1 = slower)")
    emit("signals = buy + sell crossings; trades = round trips (the last one closed at the end)")


def print_notes(
    market: Market, bd: BacktestdReport, vbt: VbtReport, bt: BtReport | None, fast: int, slow: int
) -> None:
    emit()
    emit("agreement")
    emit(f"  backtestd vs numpy: {check_signals(bd, market, fast, slow)}")
    emit(
        f"  vectorbt with its own vbt.MA(ewm=True) (first-price seed, untimed): "
        f"{vbt.native.entries + vbt.native.exits:,} signals, {vbt.native.trades:,} trades"
    )
    emit(
        "  trade counts part ways once an account runs dry: the 0.1 % fee on each side drains it "
        "(backtestd keeps trading fractions of a cent; vectorbt stops once the order size falls "
        "below its minimum; backtesting.py buys whole units and cancels every buy once the "
        "equity is below one BTC)"
    )
    if bt is not None:
        s, v = bt.subset, bt.subset_vbt
        end_ms = int(market.bars["ts"][s.rows - 1]) + SECOND_MS
        ours = int(np.count_nonzero(bd.simulated.trades.entry_ts < end_ms))
        emit(
            f"  first {s.rows:,} bars: trades backtestd {ours:,}, vectorbt {v.trades:,}, "
            f"backtesting.py {s.trades:,} ({s.canceled:,} buys canceled for want of cash)"
        )
        if bt.full:
            emit(f"  backtesting.py, all bars: {bt.full[-1].canceled:,} buys canceled")
    emit(
        f"  cold runs: backtestd first run in a fresh JVM {bd.cold_run_s:.2f} s "
        f"(JVM start {bd.start_s:.2f} s, compile {bd.compile_s:.2f} s not included); "
        f"vectorbt first run {vbt.cold_s:.2f} s (numba compile, or its on-disk cache)"
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--start", default="2026-01-01", help="first UTC day (ISO date)")
    parser.add_argument("--seed", type=int, default=0, help="sim exchange seed")
    parser.add_argument("--fast", type=int, default=9)
    parser.add_argument("--slow", type=int, default=21)
    parser.add_argument(
        "--repeat",
        type=int,
        default=10,
        help="warm runs per framework (the engine host's JIT settles over the first few: each "
        "backtestd run is printed)",
    )
    parser.add_argument(
        "--no-fill",
        dest="fill",
        action="store_false",
        help="only the sim's bars (seconds with ticks), no flat gap bars",
    )
    parser.add_argument("--bt-days", type=int, default=3, help="backtesting.py subset (days)")
    parser.add_argument(
        "--bt-budget-s",
        type=float,
        default=600.0,
        help="run backtesting.py on all days when the estimate fits",
    )
    parser.add_argument("--skip-backtesting", action="store_true")
    parser.add_argument("--heap-mb", type=int, default=1024)
    args = parser.parse_args()
    if args.repeat < 1 or args.days < 1 or args.bt_days < 1:
        parser.error("--repeat, --days and --bt-days must be at least 1")
    return args


def main() -> int:
    args = parse_args()
    missing = missing_bench_modules()
    if missing:
        emit(
            f"bench_execute: the 'bench' dependency group is not installed (missing: "
            f"{', '.join(missing)}); run `uv sync --group bench --group dev` and retry."
        )
        return 0
    os.environ.setdefault("TQDM_DISABLE", "1")  # backtesting.py's progress bar
    warnings.filterwarnings("ignore", category=FutureWarning)
    start = datetime.fromisoformat(args.start).replace(tzinfo=UTC)
    emit(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
        f"python {sys.version.split()[0]}, numpy {np.__version__}"
    )
    market = generate_market(start, args.days, args.seed, args.fill)
    print_data(market, args)
    with tempfile.TemporaryDirectory(prefix="bench-execute-") as tmp:
        emit("backtestd ...")
        bd = bench_backtestd(market, args, Path(tmp))
    print_backtestd(bd, market)
    emit("vectorbt ...")
    vbt = bench_vectorbt(market, args)
    bt = None if args.skip_backtesting else bench_backtesting(market, args)
    print_table(market, bd, vbt, bt, f"{args.fast}/{args.slow}")
    print_notes(market, bd, vbt, bt, args.fast, args.slow)
    emit(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
