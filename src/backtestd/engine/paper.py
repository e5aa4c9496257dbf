"""Paper trading: a live run's hints executed as a backtest executes its signals, one at a time.

A backtest's kernel (``engine/kernel.py``) sees every signal and mark of its range at once; a
live run sees one update at a time, so this is the same simulation made incremental. The
arithmetic is the backtest's own (``engine/fills.py``: the same fee of each fill, the same
fee leg, the same float operations in the same order as ``run_kernel``'s ``_enter``/``_close``),
so one instrument in one account gives the kernel's trades bit for bit
(``tests/unit/engine/test_paper.py`` holds the two together). What a live run adds (§6):

* **accounts**: one per quote currency shared by its pairs (``currency``), or one per
  instrument (``instrument``); an entry locks ``percentAmountToLock`` % of its account's
  **free** balance at that moment (10 % by default in a shared account, the whole free balance
  in an instrument account, as a backtest without the setting);
* **marks**: at the first update at or after each minute of market time, every account with
  an open position is valued at the last prices observed before that minute;
* **gaps**: a restart loses the open positions (their locked capital returns to the free
  balance, no PnL is counted); closed trades, realised PnL and KPIs carry on;
* **no end**: a backtest closes a position still open when its range ends (``END``); a live
  run has no end, so its open positions stay open and count only as unrealised PnL.

Event order is the kernel's: an update's price comes before the hints of the same update (a
take-profit can close a position before the strategy's reaction to that price), and only
prices after a position's last fill can trigger its take-profit. Everything the book does
comes out as :class:`~backtestd.domain.paper.PaperEvent` (the ``mix`` signals) and
:class:`~backtestd.domain.paper.PaperPoint` (the curves); its whole state is one JSON document
(:meth:`PaperSimulation.to_state`), the executor's unit of persistence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from backtestd.domain.marketdata import Instrument
from backtestd.domain.paper import (
    AccountsMode,
    AccountView,
    InstrumentView,
    PaperEvent,
    PaperEventKind,
    PaperPoint,
    PointKind,
    PositionView,
)
from backtestd.engine.fills import (
    FeeLeg,
    buy_base,
    buy_with_quote,
    fee_in_base,
    sell_base,
    sell_short,
)
from backtestd.engine.paper_state import (
    Account,
    InstrumentBook,
    Kpi,
    Position,
    account_of,
    account_state,
    kpi_data,
    position_view,
)
from backtestd.engine.portfolio import BUY, SELL, ExecutionMode, PortfolioConfig

MINUTE_MS = 60_000
SHARED_ACCOUNT_LOCK = 10.0
"""Default ``percentAmountToLock`` of a shared account: all-in would let one pair take all."""
STATE_VERSION = 1


@dataclass(frozen=True)
class PaperSettings:
    """A run's paper economics (its ``paper`` block) as the simulation uses them."""

    initial_funding: float = 100.0
    buy_fee_rate: float = 0.001
    sell_fee_rate: float = 0.001
    fee_leg: FeeLeg = FeeLeg.RECEIVED
    percent_amount_to_lock: float | None = None
    accounts: AccountsMode = AccountsMode.CURRENCY

    @property
    def lock(self) -> float | None:
        """The share of the free balance an entry locks (None: all of it)."""
        if self.percent_amount_to_lock is not None:
            return self.percent_amount_to_lock
        return SHARED_ACCOUNT_LOCK if self.accounts is AccountsMode.CURRENCY else None


@dataclass(frozen=True)
class StrategyExecution:
    """What the strategy itself sets (``setExecutionMode``, ``setPercentGain``,
    ``setMultiEntryEnabled``), read from its session as a backtest reads it from its run."""

    mode: str = ExecutionMode.LONG.value
    percent_gain: float | None = None
    multi_entry: bool = False


# -- the simulation ------------------------------------------------------------------------------


class PaperSimulation:
    """Every paper account of one run, fed its prices and hints in market order."""

    def __init__(self, settings: PaperSettings, state: Mapping[str, Any] | None = None) -> None:
        self.settings = settings
        self._executions: dict[str, StrategyExecution] = {}
        self._configs: dict[str, PortfolioConfig] = {}
        self.accounts: dict[str, Account] = {}
        self.prices: dict[str, tuple[int, float]] = {}
        self.next_mark_ms: int | None = None
        self.through_ms: int | None = None
        """Event time of the last update applied: a takeover applies only later ones."""
        self.next_seq = 1
        self._events: list[PaperEvent] = []
        self._points: list[PaperPoint] = []
        if state is not None:
            self._load(state)

    # -- inputs --------------------------------------------------------------------------------

    def configure(self, symbol: str, execution: StrategyExecution) -> None:
        """The strategy's own execution settings for one instrument (from its session)."""
        self._executions[symbol] = execution
        self._configs.pop(symbol, None)

    def restart(self, ts_ms: int) -> None:
        """A new execution took the run over: every open position is lost, each one a gap."""
        for account in self.accounts.values():
            for symbol, position in account.open_positions():
                self._event(
                    PaperEventKind.GAP,
                    ts_ms,
                    symbol,
                    self._with_account(account, {"base": position.base, "cost": position.cost}),
                )
                self._point(account, PointKind.GAP, ts_ms, symbol, position.cost)
                account.free += position.locked
                account.gaps += 1
                account.books[symbol].position = None
        self.next_mark_ms = None

    def price(self, symbol: str, ts_ms: int, price: float) -> None:
        """A market price of ``symbol`` at ``ts_ms`` (a bar's close, a ticker's last): the
        minute's marks first (valued before this price), then the take-profit."""
        if not (math.isfinite(price) and price > 0.0):
            return
        if self.next_mark_ms is None:
            self.next_mark_ms = (ts_ms // MINUTE_MS + 1) * MINUTE_MS
        elif ts_ms >= self.next_mark_ms:
            boundary = ts_ms // MINUTE_MS * MINUTE_MS
            for account in self.accounts.values():
                if account.open_positions():
                    self._mark(account, boundary)
            self.next_mark_ms = boundary + MINUTE_MS
        self._take_profit(symbol, ts_ms, price)
        self.prices[symbol] = (ts_ms, price)
        self.through_ms = ts_ms if self.through_ms is None else max(self.through_ms, ts_ms)

    def hint(self, symbol: str, ts_ms: int, side: int, price: float) -> None:
        """A buy (+1) or a sell (-1) at ``price``: what the kernel does with a signal."""
        if side not in (BUY, SELL) or not (math.isfinite(price) and price > 0.0):
            return
        account = self._account(symbol, ts_ms)
        book = account.books.get(symbol)
        if book is None:
            book = account.books[symbol] = InstrumentBook(symbol, kpi=Kpi(peak=account.initial))
        cfg = self._config(symbol)
        position = book.position
        if position is None:
            if side == cfg.position_side:
                self._enter(account, book, ts_ms, side, price)
        elif side == position.side:
            if cfg.allows_multi_entry:
                self._enter(account, book, ts_ms, side, price)
        else:
            self._close(account, book, ts_ms, price, "signal")
        self.through_ms = ts_ms if self.through_ms is None else max(self.through_ms, ts_ms)

    def drain(self) -> tuple[list[PaperEvent], list[PaperPoint]]:
        """What happened since the last drain, in order."""
        events, points = self._events, self._points
        self._events, self._points = [], []
        return events, points

    # -- execution (the kernel's arithmetic) ---------------------------------------------------

    def _enter(
        self, account: Account, book: InstrumentBook, ts: int, side: int, price: float
    ) -> None:
        cfg = self._config(book.symbol)
        pct = cfg.percent_amount_to_lock
        amount = account.free if pct is None else account.free * (pct / 100.0)
        if not amount > 0.0:
            return
        position = book.position
        if position is None:
            position = book.position = Position(side=side, entry_ts=ts, first_price=price)
        if side == BUY:
            base_fee = fee_in_base(cfg.fee_leg, is_buy=True)
            units, fee = buy_with_quote(amount, price, cfg.buy_fee_rate, base_fee=base_fee)
            received_quote = 0.0
        else:
            base_fee = fee_in_base(cfg.fee_leg, is_buy=False)
            units, received_quote, fee = sell_short(
                amount, price, cfg.sell_fee_rate, base_fee=base_fee
            )
            position.cash += amount + received_quote
        account.free -= amount
        position.locked += amount
        position.units += units
        position.fees += fee
        position.notional += amount
        position.gross_qty += amount / price
        position.entries += 1
        position.last_fill_ts = ts
        position.mark_price = position.marked_at_ms = None
        if side == BUY:
            fill = {"side": "buy", "amount": units, "counter_amount": amount}
        else:
            fill = {"side": "sell", "amount": amount / price, "counter_amount": received_quote}
        self._fill(account, book.symbol, ts, price, fill, fee, base_fee)

    def _close(
        self, account: Account, book: InstrumentBook, ts: int, price: float, reason: str
    ) -> None:
        cfg = self._config(book.symbol)
        position = book.position
        assert position is not None
        if position.side == BUY:
            base_fee = fee_in_base(cfg.fee_leg, is_buy=False)
            received, fee = sell_base(position.units, price, cfg.sell_fee_rate, base_fee=base_fee)
            value = received
            fill = {"side": "sell", "amount": position.units, "counter_amount": received}
        else:
            base_fee = fee_in_base(cfg.fee_leg, is_buy=True)
            paid, fee = buy_base(position.units, price, cfg.buy_fee_rate, base_fee=base_fee)
            value = position.cash - paid
            bought = position.units / (1.0 - cfg.buy_fee_rate) if base_fee else position.units
            fill = {"side": "buy", "amount": bought, "counter_amount": paid}
        account.free += value
        book.position = None
        self._fill(account, book.symbol, ts, price, fill, fee, base_fee)
        pnl = value - position.locked
        equity_before = account.initial + account.realised
        account.realised += pnl
        account.trades += 1
        book.realised += pnl
        book.trades += 1
        if pnl > 0.0:
            book.wins += 1
        for kpi in (account.kpi, book.kpi):
            if kpi.first_ms is None:
                kpi.first_ms = account.opened_ms
        account.kpi.trade(pnl, equity_before, ts)
        book.kpi.trade(pnl, equity_before, ts)
        self._event(
            PaperEventKind.TRADE,
            ts,
            book.symbol,
            {
                "side": "long" if position.side == BUY else "short",
                "entry_ts_ms": position.entry_ts,
                "enter_amount": position.locked,
                "exit_amount": value,
                "pnl": pnl,
                "entry_price": position.entry_price,
                "exit_price": price,
                "base": position.units,
                "entries": position.entries,
                "fees": position.fees + fee,
                "exit_reason": reason,
            },
        )
        equity = account.initial + account.realised
        account.equity, account.equity_at_ms, account.equity_kind = equity, ts, "equity"
        account.kpi.value(equity)
        book.kpi.value(account.initial + book.realised)
        self._point(account, PointKind.EQUITY, ts, None, equity)
        self._point(account, PointKind.TRADE, ts, book.symbol, book.realised, book.realised)
        self._event(
            PaperEventKind.EQUITY, ts, None, self._with_account(account, {"equity": equity})
        )
        shown = account.kpi.view(account.initial)
        assert shown is not None
        self._event(PaperEventKind.KPI, ts, None, self._with_account(account, kpi_data(shown)))

    def _fill(
        self,
        account: Account,
        symbol: str,
        ts: int,
        price: float,
        fill: dict[str, Any],
        fee: float,
        base_fee: bool,
    ) -> None:
        self.prices[symbol] = (ts, price)  # a fill is an observation, later than a mark
        data = {
            "side": fill["side"],
            "order_kind": "MARKET",
            "price": price,
            "amount": fill["amount"],
            "counter_amount": fill["counter_amount"],
            "fee_base": fee / price if base_fee else 0.0,
            "fee_quote": 0.0 if base_fee else fee,
        }
        self._event(PaperEventKind.FILL, ts, symbol, data)

    def _take_profit(self, symbol: str, ts: int, price: float) -> None:
        account = self.accounts.get(self._account_key(symbol))
        book = account.books.get(symbol) if account is not None else None
        if account is None or book is None or book.position is None:
            return
        gain = self._config(symbol).percent_gain
        position = book.position
        if gain is None or ts <= position.last_fill_ts:
            return
        entry = position.entry_price
        if position.side == BUY:
            hit = price >= entry * (100.0 + gain) / 100.0
        else:
            hit = price <= entry * (100.0 - gain) / 100.0
        if hit:
            self._close(account, book, ts, price, "take_profit")

    def _mark(self, account: Account, boundary: int) -> None:
        value = account.free
        unrealised = 0.0
        open_count = 0
        for symbol, position in account.open_positions():
            price = self.prices.get(symbol, (0, position.first_price))[1]
            position.mark_price, position.marked_at_ms = price, boundary
            value += position.value(price)
            gain = position.unrealised(price)
            unrealised += gain
            open_count += 1
            book = account.books[symbol]
            self._point(
                account, PointKind.INSTRUMENT_MARK, boundary, symbol, book.realised,
                book.realised + gain,
            )  # fmt: skip
            book.kpi.value(account.initial + book.realised + gain)
        account.equity, account.equity_at_ms, account.equity_kind = value, boundary, "mark"
        account.kpi.value(value)
        self._point(account, PointKind.MARK, boundary, None, value)
        self._event(
            PaperEventKind.MARK,
            boundary,
            None,
            self._with_account(
                account,
                {
                    "equity": value,
                    "realised_pnl": account.realised,
                    "unrealised_pnl": unrealised,
                    "open_positions": open_count,
                },
            ),
        )

    # -- accounts ------------------------------------------------------------------------------

    def _account_key(self, symbol: str) -> str:
        if self.settings.accounts is AccountsMode.INSTRUMENT:
            return symbol
        return Instrument.parse(symbol).quote

    def _account(self, symbol: str, ts_ms: int) -> Account:
        key = self._account_key(symbol)
        account = self.accounts.get(key)
        if account is None:
            initial = self.settings.initial_funding
            account = self.accounts[key] = Account(
                key=key,
                currency=Instrument.parse(symbol).quote,
                initial=initial,
                free=initial,
                opened_ms=ts_ms,
                instrument=symbol if self.settings.accounts is AccountsMode.INSTRUMENT else None,
                kpi=Kpi(peak=initial),
            )
        return account

    def _config(self, symbol: str) -> PortfolioConfig:
        cfg = self._configs.get(symbol)
        if cfg is None:
            execution = self._executions.get(symbol, StrategyExecution())
            s = self.settings
            gain = execution.percent_gain
            cfg = self._configs[symbol] = PortfolioConfig(
                initial_funding=s.initial_funding,
                buy_fee_rate=s.buy_fee_rate,
                sell_fee_rate=s.sell_fee_rate,
                fee_leg=s.fee_leg,
                percent_amount_to_lock=s.lock,
                mode=ExecutionMode(execution.mode or ExecutionMode.LONG.value),
                percent_gain=gain
                if gain is not None and math.isfinite(gain) and gain > 0
                else None,
                multi_entry=execution.multi_entry,
            )
        return cfg

    def _with_account(self, account: Account, data: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"currency": account.currency}
        if account.instrument is not None:
            out["instrument"] = account.instrument
        out.update(data)
        return out

    def _event(
        self, kind: PaperEventKind, ts: int, symbol: str | None, data: dict[str, Any]
    ) -> None:
        self._events.append(PaperEvent(kind, ts, symbol, data))

    def _point(
        self,
        account: Account,
        kind: PointKind,
        ts: int,
        instrument: str | None,
        value: float,
        total: float | None = None,
    ) -> None:
        self._points.append(
            PaperPoint(self.next_seq, account.key, kind, ts, instrument, value, total)
        )
        self.next_seq += 1

    # -- views ---------------------------------------------------------------------------------

    def views(self) -> tuple[AccountView, ...]:
        """Every account as ``LivePaperAccount`` says it (§4.6), in opening order."""
        return tuple(self._view(a) for a in self.accounts.values())

    def _view(self, account: Account) -> AccountView:
        positions: list[PositionView] = []
        unrealised: float | None = 0.0
        instruments: list[InstrumentView] = []
        for symbol, book in account.books.items():
            position = book.position
            shown = position_view(symbol, position) if position is not None else None
            if shown is not None:
                positions.append(shown)
                if shown.unrealised_pnl is None:
                    unrealised = None
                elif unrealised is not None:
                    unrealised += shown.unrealised_pnl
            gain = 0.0 if shown is None else shown.unrealised_pnl
            instruments.append(
                InstrumentView(
                    instrument=symbol,
                    trades=book.trades,
                    wins=book.wins,
                    losses=book.trades - book.wins,
                    realised_pnl=book.realised,
                    contribution_pct=book.realised / account.initial * 100.0,
                    unrealised_pnl=gain,
                    total_pnl=None if gain is None else book.realised + gain,
                    open_position=shown,
                    kpi=book.kpi.view(account.initial),
                )
            )
        shared = self.settings.accounts is AccountsMode.CURRENCY
        return AccountView(
            currency=account.currency,
            initial_funding=account.initial,
            equity=account.equity if account.equity is not None else account.initial,
            realised_pnl=account.realised,
            trades=account.trades,
            gaps=account.gaps,
            open_positions=tuple(positions),
            instrument=account.instrument,
            equity_at_ms=account.equity_at_ms,
            equity_kind=account.equity_kind,
            unrealised_pnl=unrealised,
            total_pnl=None if unrealised is None else account.realised + unrealised,
            kpi=account.kpi.view(account.initial),
            instruments=tuple(instruments) if shared else None,
        )

    # -- persistence ---------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """The whole book as JSON-ready data (floats survive a JSON round trip exactly)."""
        return {
            "version": STATE_VERSION,
            "through_ms": self.through_ms,
            "next_mark_ms": self.next_mark_ms,
            "next_seq": self.next_seq,
            "prices": {s: [t, p] for s, (t, p) in self.prices.items()},
            "accounts": [account_state(a) for a in self.accounts.values()],
        }

    def _load(self, state: Mapping[str, Any]) -> None:
        self.through_ms = state.get("through_ms")
        self.next_mark_ms = state.get("next_mark_ms")
        self.next_seq = int(state.get("next_seq", 1))
        self.prices = {s: (int(v[0]), float(v[1])) for s, v in state.get("prices", {}).items()}
        for raw in state.get("accounts", []):
            account = account_of(raw)
            self.accounts[account.key] = account
