"""Turn a strategy's buy and sell signals into trades and a marked-to-market equity series.

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

import enum
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from backtestd.domain.backtests import (
    DEFAULT_FEE_LEG,
    DEFAULT_FEE_RATE,
    DEFAULT_INITIAL_FUNDING,
    check_base_settings,
)
from backtestd.engine.equity_runs import EquityBook, EquityRuns
from backtestd.engine.fills import FeeLeg, fee_in_base
from backtestd.engine.kernel import (
    T_ENTRIES,
    T_ENTRY_PRICE,
    T_ENTRY_TS,
    T_EQUITY_AFTER,
    T_EXIT_PRICE,
    T_EXIT_TS,
    T_FEES,
    T_PNL,
    T_QTY,
    T_REASON,
    T_SIDE,
    new_instants,
    run_kernel,
)

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]

BUY = 1
SELL = -1
DAY_MS = 86_400_000  # the day of the daily equity that Sharpe and Sortino use


class ExecutionMode(enum.StrEnum):
    """``ExecutionMode`` of the strategy API (``getExecutionMode`` / ``setExecutionMode``)."""

    LONG = "LONG"
    SHORT = "SHORT"
    LONG_MULTI = "LONG_MULTI"


class ExitReason(enum.IntEnum):
    """Why a trade closed."""

    SIGNAL = 0
    TAKE_PROFIT = 1
    END = 2


@dataclass(frozen=True)
class PortfolioConfig:
    """How signals become positions. Strings are accepted for the two enums.

    ``percent_amount_to_lock`` is ``None`` (each entry uses the whole free cash) or a percent
    in (0, 100] of the free cash at the time of the entry. ``percent_gain`` is ``None`` or the
    take-profit distance in percent. ``multi_entry`` lets an open position take more entries.
    ``LONG_MULTI`` always allows more entries.
    """

    initial_funding: float = DEFAULT_INITIAL_FUNDING
    buy_fee_rate: float = DEFAULT_FEE_RATE
    sell_fee_rate: float = DEFAULT_FEE_RATE
    fee_leg: FeeLeg = FeeLeg(DEFAULT_FEE_LEG)
    percent_amount_to_lock: float | None = None
    mode: ExecutionMode = ExecutionMode.LONG
    percent_gain: float | None = None
    multi_entry: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "fee_leg", FeeLeg(self.fee_leg))
        object.__setattr__(self, "mode", ExecutionMode(self.mode))
        # The request's rule, not a copy of it: a kernel caller gets the wire's own message.
        check_base_settings(
            self.initial_funding,
            self.buy_fee_rate,
            self.sell_fee_rate,
            self.percent_amount_to_lock,
        )
        gain = self.percent_gain
        if gain is not None and not (math.isfinite(gain) and gain > 0.0):
            raise ValueError("percent_gain must be a positive finite number")

    @property
    def allows_multi_entry(self) -> bool:
        """Whether an open position takes further entries."""
        return self.multi_entry or self.mode is ExecutionMode.LONG_MULTI

    @property
    def position_side(self) -> int:
        """+1 when entries are longs, -1 when they are shorts."""
        return SELL if self.mode is ExecutionMode.SHORT else BUY


@dataclass(frozen=True)
class Trades:
    """Closed round trips, one row per close of the whole position, in closing order.

    ``entry_ts`` is the first entry. ``entry_price`` is the quantity-weighted mean fill
    price of the entries. ``qty`` is the base quantity held (long) or owed (short) at the
    close. ``fees`` are entry fees plus the exit fee, in quote. ``pnl`` is the net quote
    result after fees. ``equity_after`` is the account's cash right after the close.
    """

    entry_ts: I64
    entry_price: F64
    exit_ts: I64
    exit_price: F64
    qty: F64
    side: I8
    entries: I64
    fees: F64
    pnl: F64
    exit_reason: I8
    equity_after: F64

    @property
    def count(self) -> int:
        return int(self.pnl.shape[0])


@dataclass(frozen=True)
class PortfolioResult:
    """Outcome of :func:`simulate`.

    The metrics use the equity marked to market on the regular grid. ``daily_equity``,
    ``max_drawdown`` and ``max_drawdown_percent`` are read from it by the kernel's one pass
    (``docs/metrics.md``). ``equity_runs`` (its runs, ``engine/equity_runs.py``) and
    ``equity_ts``/``equity`` (the grid and the equity at each instant) are built from
    ``equity_book`` on first use: a sweep trial never needs them. The first point is
    ``from_ms`` with the initial funding and the last point is ``to_ms`` with ``final_equity``.
    """

    config: PortfolioConfig
    from_ms: int
    to_ms: int
    grid_step_ms: int
    trades: Trades
    equity_book: EquityBook
    daily_equity: F64
    max_drawdown: float
    max_drawdown_percent: float
    final_equity: float
    ignored_signals: int

    @cached_property
    def equity_runs(self) -> EquityRuns:
        """The grid equity as runs."""
        return self.equity_book.runs()

    @cached_property
    def equity_ts(self) -> I64:
        """The grid instants (``grid_timestamps(from_ms, to_ms, grid_step_ms)``)."""
        return self.equity_runs.timestamps()

    @cached_property
    def equity(self) -> F64:
        """The equity at each grid instant (the runs expanded)."""
        return self.equity_runs.expand()


def kernel_config(cfg: PortfolioConfig) -> F64:
    """The float parameters of :func:`run_kernel` for one configuration (nan = not set)."""
    pct = cfg.percent_amount_to_lock
    gain = cfg.percent_gain
    return np.array(
        [
            cfg.initial_funding,
            cfg.buy_fee_rate,
            cfg.sell_fee_rate,
            float(fee_in_base(cfg.fee_leg, is_buy=True)),
            float(fee_in_base(cfg.fee_leg, is_buy=False)),
            math.nan if pct is None else pct,
            math.nan if gain is None else gain,
        ],
        dtype=np.float64,
    )


def kernel_mode(cfg: PortfolioConfig) -> I64:
    """The integer parameters of :func:`run_kernel`: position side and multi-entry."""
    return np.array([cfg.position_side, int(cfg.allows_multi_entry)], dtype=np.int64)


def trigger_prices(sig_ts: I64, sig_price: F64, px_ts: I64, px: F64) -> F64:
    """Fill prices for ticker signals: the price of the tick that triggered each signal.

    On the ticker path a window fires when the first tick after its period arrives, before
    that tick updates any indicator, and the signal is stamped with that tick's time. The
    price a strategy passes is then the last price of the closed period, often seconds old.
    Filling there would trade in the past (flattering momentum strategies), so a signal
    whose timestamp is a tick's is filled at the first tick of that millisecond; a signal
    with no tick at its millisecond keeps its own price (see ``docs/metrics.md``).

    >>> trigger_prices(
    ...     np.array([10, 25]), np.array([1.0, 2.0]), np.array([5, 10, 10, 30]),
    ...     np.array([0.5, 1.5, 1.6, 3.0]),
    ... ).tolist()
    [1.5, 2.0]
    """
    at = np.searchsorted(px_ts, sig_ts, side="left")
    inside = at < px_ts.shape[0]
    hit = np.zeros(sig_ts.shape, dtype=np.bool_)
    hit[inside] = px_ts[at[inside]] == sig_ts[inside]
    out = np.asarray(sig_price, dtype=np.float64).copy()
    out[hit] = px[at[hit]]
    return out


def _check_series(ts: I64, values: F64, what: str) -> None:
    if ts.ndim != 1 or values.shape != ts.shape:
        raise ValueError(f"{what}: timestamps and prices must be 1-d arrays of one length")
    if ts.shape[0] > 1 and bool(np.any(np.diff(ts) < 0)):
        raise ValueError(f"{what}: timestamps must be non-decreasing")
    if not bool(np.all(np.isfinite(values) & (values > 0))):
        raise ValueError(f"{what}: prices must be finite and positive")


def _validate_signals(sig_ts: I64, sig_side: I8, sig_price: F64) -> None:
    _check_series(sig_ts, sig_price, "signals")
    if sig_side.shape != sig_ts.shape or not bool(np.all((sig_side == BUY) | (sig_side == SELL))):
        raise ValueError("signals: sides must be +1 (buy) or -1 (sell), one per signal")


def _in_range(ts: I64, from_ms: int, to_ms: int) -> slice:
    lo, hi = np.searchsorted(ts, [from_ms, to_ms], side="left")
    return slice(int(lo), int(hi))


@dataclass(frozen=True)
class Marks:
    """The mark prices of one run range and its equity grid's cadence, checked and cut once.

    Everything :func:`simulate` derives from the marks and the range alone: a sweep shard
    builds it once (:meth:`cut`) and passes it to :func:`simulate_marks` for every parameter
    vector, instead of re-checking a million marks per trial. The grid itself is arithmetic
    (``from + k * step``, then ``to``): the kernel computes its indices, nobody builds it,
    except which marks start an instant of their own (``m_new``, ``kernel.new_instants``),
    which every trial's equity pass reads.
    """

    from_ms: int
    to_ms: int
    grid_step_ms: int
    m_ts: I64
    m_px: F64
    m_new: I8

    @classmethod
    def cut(cls, px_ts: I64, px: F64, *, from_ms: int, to_ms: int, grid_step_ms: int) -> Marks:
        if to_ms <= from_ms:
            raise ValueError("the run range [from_ms, to_ms) is empty")
        if grid_step_ms <= 0:
            raise ValueError("grid_step_ms must be positive")
        _check_series(px_ts, px, "mark prices")
        marks = _in_range(px_ts, from_ms, to_ms)
        m_ts = np.ascontiguousarray(px_ts[marks], dtype=np.int64)
        return cls(
            from_ms=from_ms,
            to_ms=to_ms,
            grid_step_ms=grid_step_ms,
            m_ts=m_ts,
            m_px=np.ascontiguousarray(px[marks], dtype=np.float64),
            m_new=new_instants(m_ts, from_ms, grid_step_ms),
        )


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
    ``simulate(...)`` is ``simulate_marks(..., Marks.cut(px_ts, px, ...), config)``.

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
    marks = Marks.cut(px_ts, px, from_ms=from_ms, to_ms=to_ms, grid_step_ms=grid_step_ms)
    return simulate_marks(sig_ts, sig_side, sig_price, marks, config)


def simulate_marks(
    sig_ts: I64,
    sig_side: I8,
    sig_price: F64,
    marks: Marks,
    config: PortfolioConfig | None = None,
) -> PortfolioResult:
    """:func:`simulate` over marks already checked and cut to the run range."""
    cfg = config if config is not None else PortfolioConfig()
    _validate_signals(sig_ts, sig_side, sig_price)
    sigs = _in_range(sig_ts, marks.from_ms, marks.to_ms)
    s_ts = np.asarray(sig_ts[sigs], dtype=np.int64)
    tf, ti, n, book_ts, book_f, daily, dd, dd_pct, final_cash, ignored = run_kernel(
        np.ascontiguousarray(s_ts),
        np.ascontiguousarray(sig_side[sigs], dtype=np.int8),
        np.ascontiguousarray(sig_price[sigs], dtype=np.float64),
        marks.m_ts,
        marks.m_px,
        marks.m_new,
        marks.from_ms,
        marks.to_ms,
        marks.grid_step_ms,
        DAY_MS,
        kernel_config(cfg),
        kernel_mode(cfg),
    )
    trades = Trades(
        entry_ts=ti[:n, T_ENTRY_TS].copy(),
        entry_price=tf[:n, T_ENTRY_PRICE].copy(),
        exit_ts=ti[:n, T_EXIT_TS].copy(),
        exit_price=tf[:n, T_EXIT_PRICE].copy(),
        qty=tf[:n, T_QTY].copy(),
        side=ti[:n, T_SIDE].astype(np.int8),
        entries=ti[:n, T_ENTRIES].copy(),
        fees=tf[:n, T_FEES].copy(),
        pnl=tf[:n, T_PNL].copy(),
        exit_reason=ti[:n, T_REASON].astype(np.int8),
        equity_after=tf[:n, T_EQUITY_AFTER].copy(),
    )
    return PortfolioResult(
        config=cfg,
        from_ms=marks.from_ms,
        to_ms=marks.to_ms,
        grid_step_ms=marks.grid_step_ms,
        trades=trades,
        equity_book=EquityBook(
            book_ts,
            book_f,
            marks.m_ts,
            marks.m_px,
            cfg.initial_funding,
            float(final_cash),
            marks.from_ms,
            marks.to_ms,
            marks.grid_step_ms,
        ),  # fmt: skip
        daily_equity=daily,
        max_drawdown=float(dd),
        max_drawdown_percent=float(dd_pct),
        final_equity=float(final_cash),
        ignored_signals=int(ignored),
    )
