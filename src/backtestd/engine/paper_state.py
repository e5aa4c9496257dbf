"""The state of a paper book (``engine/paper.py``): positions, accounts and running KPIs,
and how they become the stored JSON document and the views the routes serve.

Every field is a plain number, string or nested record, so the book survives a JSON round
trip bit for bit (Python writes floats in their shortest round-tripping form).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from backtestd.domain.paper import PaperKpi, PositionView
from backtestd.engine.metrics import cagr

ZERO_DISPERSION = 1e-12


@dataclass
class Position:
    """One open position: the kernel's per-position state (``st``/``si`` in ``kernel.py``)."""

    side: int
    entry_ts: int
    first_price: float
    locked: float = 0.0  # quote taken from the free balance: the cost basis of the PnL
    cash: float = 0.0  # quote held inside the position (a short's collateral and proceeds)
    units: float = 0.0  # base held (long) or owed (short), >= 0
    fees: float = 0.0
    notional: float = 0.0
    gross_qty: float = 0.0
    entries: int = 0
    last_fill_ts: int = 0
    mark_price: float | None = None
    marked_at_ms: int | None = None

    @property
    def entry_price(self) -> float:
        return self.first_price if self.entries == 1 else self.notional / self.gross_qty

    @property
    def base(self) -> float:
        return self.side * self.units

    @property
    def cost(self) -> float:
        return self.locked - self.cash

    def value(self, price: float) -> float:
        """What the position is worth in the account at ``price`` (no exit fee), the kernel's
        ``cash + held * price``."""
        return self.cash + self.side * self.units * price

    def unrealised(self, price: float) -> float:
        return self.base * price - self.cost


@dataclass
class Kpi:
    """Running KPIs over closed trades (and drawdown over recorded values), cheap to update
    and to store: Welford's mean and variance of the per-trade returns."""

    trades: int = 0
    wins: int = 0
    pnl: float = 0.0
    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    down2: float = 0.0
    peak: float | None = None
    max_dd: float = 0.0
    max_dd_pct: float = 0.0
    first_ms: int | None = None
    last_ms: int | None = None

    def trade(self, pnl: float, equity_before: float, ts_ms: int) -> None:
        self.trades += 1
        if pnl > 0.0:
            self.wins += 1
        self.pnl += pnl
        r = pnl / equity_before if equity_before > 0.0 else 0.0
        self.n += 1
        delta = r - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (r - self.mean)
        low = min(r, 0.0)
        self.down2 += low * low
        self.last_ms = ts_ms

    def value(self, value: float) -> None:
        """A recorded value of the curve the drawdown is measured on."""
        if self.peak is None or value > self.peak:
            self.peak = value
            return
        fall = self.peak - value
        self.max_dd = max(self.max_dd, fall)
        if self.peak > 0.0:
            self.max_dd_pct = max(self.max_dd_pct, fall / self.peak * 100.0)

    def view(self, initial: float) -> PaperKpi | None:
        if not self.trades:
            return None
        sharpe = sortino = None
        if self.n >= 2:
            std = math.sqrt(self.m2 / (self.n - 1))
            down = math.sqrt(self.down2 / self.n)
            sharpe = self.mean / std if std > ZERO_DISPERSION else 0.0
            sortino = self.mean / down if down > ZERO_DISPERSION else 0.0
        growth = None
        if self.first_ms is not None and self.last_ms is not None:
            if self.last_ms > self.first_ms:
                growth = cagr(initial, initial + self.pnl, self.last_ms - self.first_ms)
        return PaperKpi(
            total_trades=self.trades,
            win_count=self.wins,
            loss_count=self.trades - self.wins,
            win_rate=self.wins / self.trades,
            pnl_total=self.pnl,
            pnl_total_percent=self.pnl / initial * 100.0,
            sharpe_ratio=sharpe,
            sortino_ratio=sortino,
            cagr=growth,
            max_drawdown=self.max_dd,
            max_drawdown_percent=self.max_dd_pct,
        )


@dataclass
class InstrumentBook:
    """One pair inside an account: its position and its share of the account's results."""

    symbol: str
    trades: int = 0
    wins: int = 0
    realised: float = 0.0
    kpi: Kpi = field(default_factory=Kpi)
    position: Position | None = None


@dataclass
class Account:
    key: str
    currency: str
    initial: float
    free: float
    opened_ms: int
    instrument: str | None = None
    realised: float = 0.0
    trades: int = 0
    gaps: int = 0
    equity: float | None = None
    equity_at_ms: int | None = None
    equity_kind: str | None = None
    kpi: Kpi = field(default_factory=Kpi)
    books: dict[str, InstrumentBook] = field(default_factory=dict)

    def open_positions(self) -> list[tuple[str, Position]]:
        return [(s, b.position) for s, b in self.books.items() if b.position is not None]


def position_view(symbol: str, position: Position) -> PositionView:
    marked = position.mark_price is not None and position.marked_at_ms is not None
    return PositionView(
        instrument=symbol,
        base=position.base,
        cost=position.cost,
        mark_price=position.mark_price if marked else None,
        marked_at_ms=position.marked_at_ms if marked else None,
        unrealised_pnl=position.unrealised(position.mark_price)
        if marked and position.mark_price is not None
        else None,
    )


def kpi_data(kpi: PaperKpi) -> dict[str, Any]:
    """The KPI keys of a ``kpi`` item and of ``LivePaperKpi`` (wire names)."""
    return {
        "total_trades": kpi.total_trades,
        "win_count": kpi.win_count,
        "loss_count": kpi.loss_count,
        "win_rate": kpi.win_rate,
        "pnl_total": kpi.pnl_total,
        "pnl_total_percent": kpi.pnl_total_percent,
        "sharpe_ratio": kpi.sharpe_ratio,
        "sortino_ratio": kpi.sortino_ratio,
        "cagr": kpi.cagr,
        "max_drawdown": kpi.max_drawdown,
        "max_drawdown_percent": kpi.max_drawdown_percent,
    }


def account_state(account: Account) -> dict[str, Any]:
    raw = asdict(account)
    raw["books"] = [asdict(b) for b in account.books.values()]
    return raw


def account_of(raw: Mapping[str, Any]) -> Account:
    books: dict[str, InstrumentBook] = {}
    for b in raw["books"]:
        position = b.get("position")
        books[b["symbol"]] = InstrumentBook(
            symbol=b["symbol"],
            trades=b["trades"],
            wins=b["wins"],
            realised=b["realised"],
            kpi=Kpi(**b["kpi"]),
            position=Position(**position) if position is not None else None,
        )
    values = {k: v for k, v in raw.items() if k not in ("books", "kpi")}
    return Account(**values, kpi=Kpi(**raw["kpi"]), books=books)
