"""Paper trading on live runs (``spec/live-execution.md`` §4.6, §6): the vocabulary shared by
the simulation (``engine/paper.py``), the executor that persists it (``jobs/live``), the storage
and the reads (``services/live/paper_reads.py``).

A run's paper state is one :class:`PaperBook` document (every account, its positions and its
running KPIs) plus its curve, an append-only list of :class:`PaperPoint`. The executor writes
both in the transaction that records the signals of the same update, so a takeover finds the
state and the record agreeing, and any API replica reads them from the database.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class AccountsMode(enum.StrEnum):
    """``paper.accounts``: one shared account per quote currency, or one per instrument."""

    CURRENCY = "currency"
    INSTRUMENT = "instrument"


class PaperOutput(enum.StrEnum):
    SEPARATE = "separate"
    MIX = "mix"


class PaperEventKind(enum.StrEnum):
    """``kind`` of a ``type: paper`` signal (§6.5)."""

    FILL = "fill"
    TRADE = "trade"
    EQUITY = "equity"
    KPI = "kpi"
    MARK = "mark"
    GAP = "gap"


class PointKind(enum.StrEnum):
    """What one curve entry is.

    ``equity``/``mark``/``gap`` make an account's curve (its value after a closed trade, its
    periodic mark, a position lost to a restart); ``trade``/``imark`` make an instrument's
    curves inside a shared account (cumulative realised PnL at its closed trades, and realised
    plus unrealised at its marks).
    """

    EQUITY = "equity"
    MARK = "mark"
    GAP = "gap"
    TRADE = "trade"
    INSTRUMENT_MARK = "imark"


@dataclass(frozen=True)
class PaperEvent:
    """Something the paper book did, in the order it happened: a ``type: paper`` signal of a
    ``mix`` run (``symbol`` None for the account items ``equity``, ``kpi`` and ``mark``)."""

    kind: PaperEventKind
    ts_ms: int
    symbol: str | None
    data: Mapping[str, Any]


@dataclass(frozen=True)
class PaperPoint:
    """One entry of a run's paper curves. ``seq`` orders a run's entries (event order);
    ``account`` is the account's key (its currency, or its instrument in ``instrument`` runs);
    ``total`` is realised plus unrealised for instrument entries."""

    seq: int
    account: str
    kind: PointKind
    ts_ms: int
    instrument: str | None
    value: float
    total: float | None = None


@dataclass(frozen=True)
class PaperBook:
    """A run's paper state as stored: the simulation's JSON document (``engine/paper.py``
    writes and reads it) and when it was last written (wall ms)."""

    run_id: str
    state: Mapping[str, Any] = field(repr=False)
    updated_at_ms: int = 0


@dataclass(frozen=True)
class PaperKpi:
    """``LivePaperKpi`` in Python names (§4.6): a backtest's trade metrics over the closed
    trades; Sharpe and Sortino per trade, None until two trades; cagr None before any time
    has passed."""

    total_trades: int
    win_count: int
    loss_count: int
    win_rate: float
    pnl_total: float
    pnl_total_percent: float
    sharpe_ratio: float | None
    sortino_ratio: float | None
    cagr: float | None
    max_drawdown: float
    max_drawdown_percent: float


@dataclass(frozen=True)
class PositionView:
    """An open position: ``base`` signed (negative when short), ``cost`` what it holds of the
    account's currency; the mark fields only while the last mark valued it as it is now."""

    instrument: str
    base: float
    cost: float
    mark_price: float | None = None
    marked_at_ms: int | None = None
    unrealised_pnl: float | None = None


@dataclass(frozen=True)
class InstrumentView:
    instrument: str
    trades: int
    wins: int
    losses: int
    realised_pnl: float
    contribution_pct: float | None
    unrealised_pnl: float | None
    total_pnl: float | None
    open_position: PositionView | None
    kpi: PaperKpi | None


@dataclass(frozen=True)
class AccountView:
    """``LivePaperAccount`` in Python names."""

    currency: str
    initial_funding: float
    equity: float
    realised_pnl: float
    trades: int
    gaps: int
    open_positions: tuple[PositionView, ...]
    instrument: str | None = None
    equity_at_ms: int | None = None
    equity_kind: str | None = None
    unrealised_pnl: float | None = None
    total_pnl: float | None = None
    kpi: PaperKpi | None = None
    instruments: tuple[InstrumentView, ...] | None = None
