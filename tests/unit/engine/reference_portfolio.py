"""The pre-compilation Python portfolio loop, kept as the oracle of the compiled kernel.

This is the loop ``execute`` ran before ``engine/kernel.py``; ``test_kernel.py`` holds the
kernel to its results bit for bit. The original module text follows.

Turn a strategy's buy and sell signals into trades and a marked-to-market equity series.

The strategy only says *buy* or *sell* at a price. Everything else is decided here: the
position size, the fees, what a repeated signal does in each execution mode, the take-profit
set with ``setPercentGain``, and the closing of a position still open at the end. The rules
are written out in ``docs/metrics.md``. A sweep winner that is re-run through ``execute`` must
agree with its sweep row on every metric, so the simulation is one sequential pass in a fixed
event order, with no parallel float reductions. The same inputs always give the same bits.

Event order: signals are handled in input order. Mark prices come before signals with the
same millisecond, because the signal was a reaction to that price. Only marks strictly after
a position's last fill can trigger its take-profit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from backtestd.engine.equity_runs import EquityBook, EquityRuns
from backtestd.engine.fills import (
    buy_base,
    buy_with_quote,
    fee_in_base,
    sell_base,
    sell_short,
)
from backtestd.engine.kernel_metrics import daily_equity, equity_stats
from backtestd.engine.mark_to_market import BookHistory, equity_on_grid, grid_timestamps
from backtestd.engine.portfolio import ExitReason, PortfolioConfig, PortfolioResult, Trades

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]

BUY = 1
SELL = -1
DAY_MS = 86_400_000


@dataclass
class _Position:
    side: int
    locked: float = 0.0  # quote taken from free cash, the cost basis of the pnl
    cash: float = 0.0  # quote held inside the position (a short's collateral plus proceeds)
    units: float = 0.0  # base held (long) or owed (short), always >= 0
    fees: float = 0.0
    entry_ts: int = 0
    notional: float = 0.0  # sum of entry notionals, for the mean entry price
    gross_qty: float = 0.0  # sum of entry notional / price
    first_price: float = 0.0
    entries: int = 0

    @property
    def entry_price(self) -> float:
        # A single entry reports its own price exactly, not notional / (notional / price).
        return self.first_price if self.entries == 1 else self.notional / self.gross_qty


@dataclass
class _Simulator:
    config: PortfolioConfig
    marks_ts: I64
    marks_px: F64
    free: float = 0.0
    position: _Position | None = None
    ignored: int = 0
    book: BookHistory = field(default_factory=BookHistory)
    rows: list[tuple[int, float, int, float, float, int, int, float, float, int, float]] = field(
        default_factory=list
    )

    def __post_init__(self) -> None:
        self.free = self.config.initial_funding

    def on_signal(self, ts: int, side: int, price: float) -> None:
        cfg = self.config
        pos = self.position
        if pos is None:
            if side == cfg.position_side:
                self._enter(ts, side, price)
            else:
                self.ignored += 1
        elif side == pos.side:
            if cfg.allows_multi_entry:
                self._enter(ts, side, price)
            else:
                self.ignored += 1
        else:
            self._close(ts, price, ExitReason.SIGNAL)

    def _enter(self, ts: int, side: int, price: float) -> None:
        cfg = self.config
        pct = cfg.percent_amount_to_lock
        amount = self.free if pct is None else self.free * (pct / 100.0)
        if not amount > 0.0:
            self.ignored += 1
            return
        pos = self.position
        if pos is None:
            pos = self.position = _Position(side=side, entry_ts=ts, first_price=price)
        if side == BUY:
            base_fee = fee_in_base(cfg.fee_leg, is_buy=True)
            units, fee = buy_with_quote(amount, price, cfg.buy_fee_rate, base_fee=base_fee)
        else:
            base_fee = fee_in_base(cfg.fee_leg, is_buy=False)
            units, received, fee = sell_short(amount, price, cfg.sell_fee_rate, base_fee=base_fee)
            pos.cash += amount + received
        self.free -= amount
        pos.locked += amount
        pos.units += units
        pos.fees += fee
        pos.notional += amount
        pos.gross_qty += amount / price
        pos.entries += 1
        self.book.record(ts, price, self.free + pos.cash, side * pos.units)

    def _close(self, ts: int, price: float, reason: ExitReason) -> None:
        cfg = self.config
        pos = self.position
        assert pos is not None
        if pos.side == BUY:
            base_fee = fee_in_base(cfg.fee_leg, is_buy=False)
            received, fee = sell_base(pos.units, price, cfg.sell_fee_rate, base_fee=base_fee)
            value = received
        else:
            base_fee = fee_in_base(cfg.fee_leg, is_buy=True)
            paid, fee = buy_base(pos.units, price, cfg.buy_fee_rate, base_fee=base_fee)
            value = pos.cash - paid
        self.free += value
        self.position = None
        if reason is not ExitReason.END:
            # The closing at the end belongs to the end of the run, not to the moment of the
            # last price: the grid shows it only at its last instant, ``to``.
            self.book.record(ts, price, self.free, 0.0)
        self.rows.append(
            (
                pos.entry_ts,
                pos.entry_price,
                ts,
                price,
                pos.units,
                pos.side,
                pos.entries,
                pos.fees + fee,
                value - pos.locked,
                int(reason),
                self.free,
            )
        )

    def take_profit(self, lo: int, hi: int) -> None:
        """Close the open position at the first mark in ``[lo, hi)`` beyond its target."""
        pos = self.position
        gain = self.config.percent_gain
        if pos is None or gain is None or lo >= hi:
            return
        window = self.marks_px[lo:hi]
        # entry * (100 + g) / 100 is exact for round figures: 10 * 1.1 is not 11.0 in floats.
        if pos.side == BUY:
            hit = window >= pos.entry_price * (100.0 + gain) / 100.0
        else:
            hit = window <= pos.entry_price * (100.0 - gain) / 100.0
        k = int(np.argmax(hit))
        if hit[k]:
            self._close(int(self.marks_ts[lo + k]), float(window[k]), ExitReason.TAKE_PROFIT)

    def finish(self) -> None:
        """Close a position still open at the last price observed in the run."""
        if self.position is None:
            return
        last_ts, last_px = self.book.last_fill()
        if self.marks_ts.shape[0] and int(self.marks_ts[-1]) > last_ts:
            last_ts, last_px = int(self.marks_ts[-1]), float(self.marks_px[-1])
        self._close(last_ts, last_px, ExitReason.END)

    def trades(self) -> Trades:
        cols = list(zip(*self.rows, strict=True)) if self.rows else [()] * 11
        dtypes = (
            np.int64, np.float64, np.int64, np.float64, np.float64, np.int8,
            np.int64, np.float64, np.float64, np.int8, np.float64,
        )  # fmt: skip
        arrays = [np.array(c, dtype=d) for c, d in zip(cols, dtypes, strict=True)]
        return Trades(*arrays)


def _check_series(ts: I64, values: F64, what: str) -> None:
    if ts.ndim != 1 or values.shape != ts.shape:
        raise ValueError(f"{what}: timestamps and prices must be 1-d arrays of one length")
    if ts.shape[0] > 1 and bool(np.any(np.diff(ts) < 0)):
        raise ValueError(f"{what}: timestamps must be non-decreasing")
    if not bool(np.all(np.isfinite(values) & (values > 0))):
        raise ValueError(f"{what}: prices must be finite and positive")


def _validate(
    sig_ts: I64, sig_side: I8, sig_price: F64, px_ts: I64, px: F64, span: tuple[int, int, int]
) -> None:
    from_ms, to_ms, grid_step_ms = span
    if to_ms <= from_ms:
        raise ValueError("the run range [from_ms, to_ms) is empty")
    if grid_step_ms <= 0:
        raise ValueError("grid_step_ms must be positive")
    _check_series(sig_ts, sig_price, "signals")
    _check_series(px_ts, px, "mark prices")
    if sig_side.shape != sig_ts.shape or not bool(np.all((sig_side == BUY) | (sig_side == SELL))):
        raise ValueError("signals: sides must be +1 (buy) or -1 (sell), one per signal")


def _in_range(ts: I64, from_ms: int, to_ms: int) -> slice:
    lo, hi = np.searchsorted(ts, [from_ms, to_ms], side="left")
    return slice(int(lo), int(hi))


def simulate(
    sig_ts: I64,
    sig_side: I8,
    sig_price: F64,
    px_ts: I64,
    px: F64,
    *,
    from_ms: int,
    to_ms: int,
    grid_step_ms: int,
    config: PortfolioConfig | None = None,
) -> PortfolioResult:
    """Run the signals through the portfolio over the run range ``[from_ms, to_ms)``.

    ``px_ts``/``px`` is the mark price series: ticks, or bar closes for klines. Signals and
    marks outside the range are ignored. ``grid_step_ms`` is the cadence of the equity series
    that the metrics use: the prepared bar cadence for klines, 60 000 for tickers.

    >>> ts = np.array([0, 60_000, 120_000], dtype=np.int64)
    >>> r = simulate(
    ...     ts[:2], np.array([1, -1], dtype=np.int8), np.array([10.0, 11.0]),
    ...     ts, np.array([10.0, 11.0, 12.0]),
    ...     from_ms=0, to_ms=180_000, grid_step_ms=60_000,
    ...     config=PortfolioConfig(buy_fee_rate=0.0, sell_fee_rate=0.0),
    ... )
    >>> r.trades.count, float(r.trades.pnl[0]), r.equity.tolist()
    (1, 10.0, [100.0, 100.0, 110.0, 110.0])
    """
    cfg = config if config is not None else PortfolioConfig()
    _validate(sig_ts, sig_side, sig_price, px_ts, px, (from_ms, to_ms, grid_step_ms))
    sigs = _in_range(sig_ts, from_ms, to_ms)
    marks = _in_range(px_ts, from_ms, to_ms)
    m_ts = np.ascontiguousarray(px_ts[marks], dtype=np.int64)
    m_px = np.ascontiguousarray(px[marks], dtype=np.float64)
    s_ts = np.asarray(sig_ts[sigs], dtype=np.int64)
    # Marks at or before each signal's millisecond are handled before that signal.
    mark_hi = np.searchsorted(m_ts, s_ts, side="right").tolist()

    sim = _Simulator(cfg, m_ts, m_px)
    done = 0
    rows = zip(s_ts.tolist(), sig_side[sigs].tolist(), sig_price[sigs].tolist(), strict=True)
    for (ts, side, price), hi in zip(rows, mark_hi, strict=True):
        sim.take_profit(done, hi)
        done = hi
        sim.on_signal(ts, side, price)
    sim.take_profit(done, int(m_ts.shape[0]))
    sim.finish()

    grid = grid_timestamps(from_ms, to_ms, grid_step_ms)
    equity = equity_on_grid(grid, sim.book, m_ts, m_px, cfg.initial_funding)
    equity[-1] = sim.free
    # The metrics' inputs from the full grid, not from the kernel's pass over the changes.
    _, _, dd, dd_pct = equity_stats(equity, grid, DAY_MS)
    book = EquityBook(
        np.asarray(sim.book.ts, dtype=np.int64),
        np.array([sim.book.price, sim.book.cash, sim.book.units]).T.reshape(-1, 3),
        m_ts, m_px, cfg.initial_funding, sim.free, from_ms, to_ms, grid_step_ms,
    )  # fmt: skip
    result = PortfolioResult(
        config=cfg,
        from_ms=from_ms,
        to_ms=to_ms,
        grid_step_ms=grid_step_ms,
        trades=sim.trades(),
        equity_book=book,
        daily_equity=daily_equity(equity, grid, DAY_MS),
        max_drawdown=dd,
        max_drawdown_percent=dd_pct,
        final_equity=sim.free,
        ignored_signals=sim.ignored,
    )
    # The full grid is this loop's own, not the runs of the kernel's pass over `book`.
    result.__dict__.update(
        equity=equity,
        equity_ts=grid,
        equity_runs=EquityRuns.encode(equity, from_ms, to_ms, grid_step_ms),
    )
    return result
