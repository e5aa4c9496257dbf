"""Portfolio simulation: hand-worked cases per rule, and a property test against a reference loop.

The hand-worked cases spell out the arithmetic in comments, so that a reader can check each
expected number against ``docs/metrics.md`` without running anything. The file runs past 600
lines on purpose. The reference loop at the end is a second, independent implementation of the
same rules, and it stays next to the property test that compares the two, so that nobody is
tempted to share code between the implementation and its oracle.
"""

from __future__ import annotations

import doctest
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backtestd.engine import fills, mark_to_market, portfolio
from backtestd.engine.fills import FeeLeg
from backtestd.engine.portfolio import (
    ExecutionMode,
    ExitReason,
    PortfolioConfig,
    PortfolioResult,
    simulate,
)

Signal = tuple[int, int, float]
Mark = tuple[int, float]
NO_FEES: dict[str, Any] = {"buy_fee_rate": 0.0, "sell_fee_rate": 0.0}


def run(
    signals: list[Signal],
    marks: list[Mark],
    *,
    to_ms: int = 5_000,
    step: int = 1_000,
    from_ms: int = 0,
    **cfg: Any,
) -> PortfolioResult:
    sig = np.array(signals, dtype=np.float64).reshape(-1, 3)
    mk = np.array(marks, dtype=np.float64).reshape(-1, 2)
    return simulate(
        sig[:, 0].astype(np.int64),
        sig[:, 1].astype(np.int8),
        sig[:, 2].copy(),
        mk[:, 0].astype(np.int64),
        mk[:, 1].copy(),
        from_ms=from_ms,
        to_ms=to_ms,
        grid_step_ms=step,
        config=PortfolioConfig(**cfg),
    )


def only_trade(result: PortfolioResult) -> dict[str, float]:
    t = result.trades
    assert t.count == 1
    names = ("entry_ts", "entry_price", "exit_ts", "exit_price", "qty", "side", "entries")
    row = {name: getattr(t, name)[0].item() for name in names}
    row.update(
        fees=t.fees[0].item(),
        pnl=t.pnl[0].item(),
        reason=t.exit_reason[0].item(),
        equity_after=t.equity_after[0].item(),
    )
    return row


MARKS = [(0, 10.0), (1_000, 10.0), (2_000, 11.0), (3_000, 12.0), (4_000, 12.0)]


def test_docstring_examples_run() -> None:
    for module in (fills, mark_to_market, portfolio):
        outcome = doctest.testmod(module)
        assert outcome.failed == 0, module.__name__
        assert outcome.attempted > 0, module.__name__


# --- LONG, one fee leg at a time ---------------------------------------------------------------


def test_long_received_fee_takes_base_on_buy_and_quote_on_sell() -> None:
    r = run([(1_000, 1, 10.0), (3_000, -1, 12.0)], MARKS, buy_fee_rate=0.01, sell_fee_rate=0.01)
    t = only_trade(r)
    # buy 100 quote at 10: 10 base gross, 0.1 base fee (= 1.0 quote) -> 9.9 base
    # sell 9.9 at 12: 118.8 notional, 1.188 fee -> 117.612 received
    assert (t["entry_ts"], t["exit_ts"], t["side"], t["entries"]) == (1_000, 3_000, 1, 1)
    assert (t["entry_price"], t["exit_price"]) == (10.0, 12.0)
    assert t["qty"] == pytest.approx(9.9)
    assert t["fees"] == pytest.approx(1.0 + 1.188)
    assert t["pnl"] == pytest.approx(17.612)
    assert t["reason"] == ExitReason.SIGNAL
    assert r.final_equity == t["equity_after"] == pytest.approx(117.612)
    # grid value = account after events strictly before the instant:
    # 0: initial; 1000: only the mark at 0; 2000: holding 9.9 at the fill price 10 (a fill
    # beats a mark of the same ms); 3000: 9.9 * 11; 4000 and the end: sold.
    assert r.equity_ts.tolist() == [0, 1_000, 2_000, 3_000, 4_000, 5_000]
    assert r.equity.tolist() == pytest.approx([100.0, 100.0, 99.0, 108.9, 117.612, 117.612])
    assert r.equity[0] == 100.0
    assert r.equity[-1] == r.final_equity


def test_long_quote_fee_shrinks_the_notional_on_buy() -> None:
    r = run(
        [(1_000, 1, 10.0), (3_000, -1, 12.0)],
        MARKS,
        buy_fee_rate=0.01,
        sell_fee_rate=0.01,
        fee_leg=FeeLeg.QUOTE,
    )
    t = only_trade(r)
    notional = 100.0 / 1.01  # notional + 1 % fee = the 100 locked
    qty = notional / 10.0
    received = qty * 12.0 * 0.99
    assert t["qty"] == pytest.approx(qty)
    assert t["fees"] == pytest.approx(notional * 0.01 + qty * 12.0 * 0.01)
    assert t["pnl"] == pytest.approx(received - 100.0)
    assert r.final_equity == pytest.approx(received)


def test_long_base_fee_sells_less_than_held_on_exit() -> None:
    r = run(
        [(1_000, 1, 10.0), (3_000, -1, 12.0)],
        MARKS,
        buy_fee_rate=0.01,
        sell_fee_rate=0.01,
        fee_leg="BASE",
    )
    t = only_trade(r)
    sold = 9.9 / 1.01  # sold + 1 % of it in base = the 9.9 held
    assert t["qty"] == pytest.approx(9.9)
    assert t["fees"] == pytest.approx(1.0 + sold * 12.0 * 0.01)
    assert t["pnl"] == pytest.approx(sold * 12.0 - 100.0)


def test_buy_and_sell_rates_apply_to_their_own_leg() -> None:
    r = run([(1_000, 1, 10.0), (3_000, -1, 12.0)], MARKS, buy_fee_rate=0.0, sell_fee_rate=0.1)
    t = only_trade(r)
    assert t["qty"] == 10.0
    assert t["fees"] == pytest.approx(12.0)  # 10 % of 120
    assert t["pnl"] == pytest.approx(8.0)


def test_long_ignores_sell_when_flat_and_repeated_buy_when_long() -> None:
    signals = [(500, -1, 10.0), (1_000, 1, 10.0), (2_000, 1, 11.0), (3_000, -1, 12.0)]
    r = run(signals, MARKS, **NO_FEES)
    t = only_trade(r)
    assert (t["entry_price"], t["qty"], t["entries"], t["pnl"]) == (10.0, 10.0, 1, 20.0)
    assert r.ignored_signals == 2


def test_losing_trade_reports_negative_pnl() -> None:
    r = run([(1_000, 1, 10.0), (3_000, -1, 8.0)], MARKS, **NO_FEES)
    assert only_trade(r)["pnl"] == -20.0
    assert r.final_equity == 80.0


# --- SHORT ------------------------------------------------------------------------------------


SHORT_MARKS = [(0, 10.0), (1_000, 10.0), (2_000, 11.0), (3_000, 8.0), (4_000, 8.0)]


def test_short_without_fees_gains_when_price_falls() -> None:
    r = run([(1_000, -1, 10.0), (3_000, 1, 8.0)], SHORT_MARKS, mode="SHORT", **NO_FEES)
    t = only_trade(r)
    # lock 100, borrow 10 base and sell for 100; buy 10 back at 8 for 80 -> 200 - 80 = 120
    assert (t["side"], t["qty"], t["pnl"], t["equity_after"]) == (-1, 10.0, 20.0, 120.0)
    # at 3000 the short is marked at 11: 200 held - 10 owed * 11 = 90
    assert r.equity.tolist() == [100.0, 100.0, 100.0, 90.0, 120.0, 120.0]


def test_short_ignores_buy_when_flat_and_sell_when_short() -> None:
    signals = [(500, 1, 10.0), (1_000, -1, 10.0), (2_000, -1, 11.0), (3_000, 1, 8.0)]
    r = run(signals, SHORT_MARKS, mode=ExecutionMode.SHORT, **NO_FEES)
    assert only_trade(r)["pnl"] == 20.0
    assert r.ignored_signals == 2


@pytest.mark.parametrize(
    ("leg", "debt", "entry_received", "cover_paid"),
    [
        # RECEIVED: quote fee on the sell, base fee on the buy-back (buy 10 / 0.99 base)
        ("RECEIVED", 10.0, 99.0, 10.0 / 0.99 * 8.0),
        # QUOTE: quote fee on both legs
        ("QUOTE", 10.0, 99.0, 80.0 * 1.01),
        # BASE: the sell's fee is borrowed too (10.1 owed), buy back 10.1 / 0.99 base
        ("BASE", 10.1, 100.0, 10.1 / 0.99 * 8.0),
    ],
)
def test_short_fee_legs(leg: str, debt: float, entry_received: float, cover_paid: float) -> None:
    r = run(
        [(1_000, -1, 10.0), (3_000, 1, 8.0)],
        SHORT_MARKS,
        mode="SHORT",
        fee_leg=leg,
        buy_fee_rate=0.01,
        sell_fee_rate=0.01,
    )
    t = only_trade(r)
    assert t["qty"] == pytest.approx(debt)
    assert t["pnl"] == pytest.approx(entry_received - cover_paid)
    fee_cover = cover_paid * 0.01 if leg != "QUOTE" else 0.8
    assert t["fees"] == pytest.approx(1.0 + fee_cover)
    assert r.final_equity == pytest.approx(100.0 + entry_received - cover_paid)


# --- sizing and multi-entry ------------------------------------------------------------------


def test_percent_amount_to_lock_uses_part_of_the_current_free_cash() -> None:
    signals = [(1_000, 1, 10.0), (2_000, -1, 12.0), (3_000, 1, 10.0), (4_000, -1, 11.0)]
    r = run(signals, MARKS, percent_amount_to_lock=50.0, **NO_FEES)
    # 1: lock 50 -> 5 base, sold for 60 -> cash 110. 2: lock 55 -> 5.5 base, sold for 60.5
    assert r.trades.qty.tolist() == [5.0, 5.5]
    assert r.trades.pnl.tolist() == pytest.approx([10.0, 5.5])
    assert r.trades.equity_after.tolist() == pytest.approx([110.0, 115.5])
    assert r.final_equity == pytest.approx(115.5)


@pytest.mark.parametrize(
    "cfg",
    [
        {"mode": "LONG_MULTI"},
        {"mode": "LONG", "multi_entry": True},
    ],
)
def test_multi_entry_long_adds_and_one_sell_closes_all(cfg: dict[str, Any]) -> None:
    signals = [(1_000, 1, 10.0), (2_000, 1, 20.0), (3_000, -1, 16.0)]
    r = run(signals, MARKS, percent_amount_to_lock=50.0, **NO_FEES, **cfg)
    t = only_trade(r)
    # lock 50 at 10 -> 5 base; lock 25 (half of the 50 left) at 20 -> 1.25 base
    # mean entry = 75 / 6.25 = 12; sell 6.25 at 16 = 100; cash 25 + 100
    assert (t["entries"], t["entry_ts"], t["qty"]) == (2, 1_000, 6.25)
    assert t["entry_price"] == 12.0
    assert t["pnl"] == 25.0
    assert r.final_equity == 125.0


def test_multi_entry_with_whole_balance_ignores_entries_without_free_cash() -> None:
    signals = [(1_000, 1, 10.0), (2_000, 1, 11.0), (3_000, -1, 12.0)]
    r = run(signals, MARKS, mode="LONG_MULTI", **NO_FEES)
    assert only_trade(r)["entries"] == 1
    assert r.ignored_signals == 1


def test_multi_entry_short_averages_entries() -> None:
    signals = [(1_000, -1, 10.0), (2_000, -1, 5.0), (3_000, 1, 6.0)]
    r = run(
        signals, SHORT_MARKS, mode="SHORT", multi_entry=True, percent_amount_to_lock=50.0, **NO_FEES
    )
    t = only_trade(r)
    # lock 50 at 10 -> owe 5, hold 100; lock 25 at 5 -> owe 5 more, hold 150
    # buy 10 back at 6 = 60 -> 90 back; locked 75 -> pnl 15; mean entry 75 / 10
    assert (t["entries"], t["qty"], t["entry_price"], t["pnl"]) == (2, 10.0, 7.5, 15.0)
    assert r.final_equity == 115.0


# --- take-profit -----------------------------------------------------------------------------


def test_take_profit_long_closes_at_first_mark_at_or_beyond_target() -> None:
    marks = [(1_000, 12.0), (2_000, 10.5), (3_000, 11.2), (3_500, 11.0), (4_000, 10.0)]
    signals = [(1_000, 1, 10.0), (4_000, -1, 10.0)]
    r = run(signals, marks, percent_gain=10.0, **NO_FEES)
    t = only_trade(r)
    # target 11.0. The mark of 12 at 1000 comes before the buy at 1000, so it does not count.
    # The first mark at or above 11 after the entry is 11.2 at 3000: exit there at 11.2.
    assert (t["exit_ts"], t["exit_price"], t["reason"]) == (3_000, 11.2, ExitReason.TAKE_PROFIT)
    assert t["pnl"] == pytest.approx(12.0)
    assert r.ignored_signals == 1  # the sell at 4000 finds the book flat


def test_take_profit_triggers_exactly_at_the_target() -> None:
    r = run([(1_000, 1, 10.0)], [(2_000, 10.9), (3_000, 11.0)], percent_gain=10.0, **NO_FEES)
    t = only_trade(r)
    assert (t["exit_ts"], t["exit_price"], t["reason"]) == (3_000, 11.0, ExitReason.TAKE_PROFIT)


def test_take_profit_short_closes_below_target() -> None:
    marks = [(2_000, 9.5), (3_000, 8.9), (4_000, 8.0)]
    r = run([(1_000, -1, 10.0)], marks, mode="SHORT", percent_gain=10.0, **NO_FEES)
    t = only_trade(r)
    # target 9.0: 8.9 at 3000; buy back 10 at 8.9 = 89 from the 200 held
    assert (t["exit_ts"], t["exit_price"], t["reason"]) == (3_000, 8.9, ExitReason.TAKE_PROFIT)
    assert t["pnl"] == pytest.approx(11.0)


def test_take_profit_target_follows_the_mean_entry() -> None:
    marks = [(1_500, 10.0), (2_500, 13.0), (3_500, 13.6), (4_500, 13.0)]
    signals = [(1_000, 1, 10.0), (2_000, 1, 20.0)]
    r = run(
        signals,
        marks,
        mode="LONG_MULTI",
        percent_amount_to_lock=50.0,
        percent_gain=10.0,
        **NO_FEES,
    )
    t = only_trade(r)
    # After the first entry the target is 11, which the mark of 13 would hit. The second
    # entry moves the mean entry to 75 / 6.25 = 12 and the target to 13.2: 13.6 hits it.
    assert (t["entry_price"], t["exit_ts"], t["exit_price"]) == (12.0, 3_500, 13.6)
    assert t["reason"] == ExitReason.TAKE_PROFIT


# --- end of run, range and edge cases --------------------------------------------------------


def test_open_position_is_closed_at_the_last_mark_before_to() -> None:
    marks = [(0, 10.0), (2_000, 12.0), (3_000, 13.0), (5_000, 100.0)]  # 5000 is outside the run
    r = run([(1_000, 1, 10.0)], marks, buy_fee_rate=0.01, sell_fee_rate=0.01)
    t = only_trade(r)
    # 9.9 base closed at 13 with the sell fee: 128.7 * 0.99
    assert (t["exit_ts"], t["exit_price"], t["reason"]) == (3_000, 13.0, ExitReason.END)
    assert t["pnl"] == pytest.approx(9.9 * 13.0 * 0.99 - 100.0)
    # the grid marks the open position (no exit fee) until the end of the run
    assert r.equity.tolist() == pytest.approx([100.0, 100.0, 99.0, 118.8, 128.7, 9.9 * 13 * 0.99])
    assert r.final_equity == r.equity[-1]


def test_open_position_after_the_last_mark_closes_at_its_own_fill() -> None:
    r = run([(4_000, 1, 10.0)], [(0, 9.0), (3_000, 11.0)], buy_fee_rate=0.01, sell_fee_rate=0.01)
    t = only_trade(r)
    assert (t["exit_ts"], t["exit_price"], t["reason"]) == (4_000, 10.0, ExitReason.END)
    assert t["pnl"] == pytest.approx(9.9 * 10.0 * 0.99 - 100.0)  # both fees, nothing else


def test_signals_and_marks_outside_the_range_are_ignored() -> None:
    signals = [(-1_000, 1, 1.0), (1_000, 1, 10.0), (2_000, -1, 12.0), (5_000, 1, 1.0)]
    r = run(signals, [(-500, 1.0), *MARKS, (6_000, 1.0)], **NO_FEES)
    assert only_trade(r)["pnl"] == 20.0
    assert r.ignored_signals == 0


def test_no_signals_give_a_flat_equity_and_no_trades() -> None:
    r = run([], MARKS, to_ms=4_500)
    assert r.trades.count == 0
    assert r.equity_ts.tolist() == [0, 1_000, 2_000, 3_000, 4_000, 4_500]
    assert r.equity.tolist() == [100.0] * 6
    assert r.final_equity == 100.0


def test_several_round_trips_in_one_millisecond() -> None:
    signals = [(1_000, 1, 10.0), (1_000, -1, 11.0), (1_000, 1, 11.0), (1_000, -1, 12.1)]
    r = run(signals, MARKS, **NO_FEES)
    assert r.trades.count == 2
    assert r.trades.exit_ts.tolist() == [1_000, 1_000]
    assert r.final_equity == pytest.approx(121.0)


def test_same_inputs_give_identical_bits() -> None:
    rng = np.random.default_rng(3)
    px_ts = np.arange(5_000, dtype=np.int64) * 1_000
    px = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, 5_000)))
    at = np.sort(rng.choice(5_000, 400, replace=False))
    side = rng.choice(np.array([1, -1], dtype=np.int8), 400)
    cfg = PortfolioConfig(
        mode=ExecutionMode.LONG_MULTI, percent_amount_to_lock=30.0, percent_gain=2
    )
    a, b = (
        simulate(
            px_ts[at], side, px[at], px_ts, px,
            from_ms=0, to_ms=5_000_000, grid_step_ms=60_000, config=cfg,
        )
        for _ in range(2)
    )  # fmt: skip
    assert a.equity.tobytes() == b.equity.tobytes()
    assert a.trades.pnl.tobytes() == b.trades.pnl.tobytes()
    assert a.final_equity == b.final_equity


@pytest.mark.parametrize(
    "cfg",
    [
        {"initial_funding": 0.0},
        {"buy_fee_rate": 1.0},
        {"sell_fee_rate": -0.1},
        {"percent_amount_to_lock": 0.0},
        {"percent_amount_to_lock": 101.0},
        {"percent_gain": 0.0},
        {"mode": "LONG_SHORT"},
        {"fee_leg": "BOTH"},
    ],
)
def test_config_rejects_invalid_values(cfg: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must be|is not a valid"):
        PortfolioConfig(**cfg)


@pytest.mark.parametrize(
    ("signals", "marks", "match"),
    [
        ([(1_000, 2, 10.0)], MARKS, "sides"),
        ([(2_000, 1, 10.0), (1_000, -1, 10.0)], MARKS, "non-decreasing"),
        ([(1_000, 1, 0.0)], MARKS, "positive"),
        ([(1_000, 1, 10.0)], [(0, float("nan"))], "finite"),
    ],
)
def test_simulate_rejects_malformed_inputs(
    signals: list[Signal], marks: list[Mark], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        run(signals, marks)


def test_simulate_rejects_an_empty_range() -> None:
    with pytest.raises(ValueError, match="empty"):
        run([], MARKS, from_ms=5_000, to_ms=5_000)


# --- property test against an independent reference loop -------------------------------------


@dataclass
class _RefPosition:
    side: int
    entry_ts: int
    first_price: float
    locked: float = 0.0
    held_quote: float = 0.0
    units: float = 0.0
    fees: float = 0.0
    notional: float = 0.0
    gross: float = 0.0
    entries: int = 0


@dataclass
class _Reference:
    """A deliberately plain event loop: every mark and signal in time order, one at a time."""

    cfg: PortfolioConfig
    free: float = 0.0
    pos: _RefPosition | None = None
    last_ts: int = 0
    last_px: float | None = None
    ignored: int = 0
    trades: list[tuple[float, ...]] = field(default_factory=list)

    def equity(self) -> float:
        p = self.pos
        if p is None:
            return self.free
        assert self.last_px is not None
        if p.side == 1:
            return self.free + p.units * self.last_px
        return self.free + p.held_quote - p.units * self.last_px

    def entry_price(self) -> float:
        p = self.pos
        assert p is not None
        return p.first_price if p.entries == 1 else p.notional / p.gross

    def enter(self, ts: int, side: int, price: float) -> None:
        cfg = self.cfg
        pct = cfg.percent_amount_to_lock
        amount = self.free if pct is None else self.free * (pct / 100.0)
        if amount <= 0.0:
            self.ignored += 1
            return
        if self.pos is None:
            self.pos = _RefPosition(side=side, entry_ts=ts, first_price=price)
        p = self.pos
        if side == 1:
            rate = cfg.buy_fee_rate
            if cfg.fee_leg == "QUOTE":  # fee in quote: notional * (1 + rate) = amount
                units, fee = amount / (1.0 + rate) / price, amount / (1.0 + rate) * rate
            else:  # fee in the base received
                units, fee = amount / price * (1.0 - rate), amount * rate
        else:
            rate = cfg.sell_fee_rate
            if cfg.fee_leg == "BASE":  # the fee is borrowed too
                units, got, fee = amount / price * (1.0 + rate), amount, amount * rate
            else:
                units, got, fee = amount / price, amount * (1.0 - rate), amount * rate
            p.held_quote += amount + got
        self.free -= amount
        p.locked += amount
        p.units += units
        p.fees += fee
        p.notional += amount
        p.gross += amount / price
        p.entries += 1
        self.last_ts, self.last_px = ts, price

    def close(self, ts: int, price: float, reason: int) -> None:
        cfg = self.cfg
        p = self.pos
        assert p is not None
        entry_price = self.entry_price()
        if p.side == 1:
            rate = cfg.sell_fee_rate
            if cfg.fee_leg == "BASE":
                notional = p.units / (1.0 + rate) * price
                back, fee = notional, notional * rate
            else:
                back, fee = p.units * price * (1.0 - rate), p.units * price * rate
        else:
            rate = cfg.buy_fee_rate
            if cfg.fee_leg == "QUOTE":
                paid, fee = p.units * price * (1.0 + rate), p.units * price * rate
            else:
                paid = p.units / (1.0 - rate) * price
                fee = paid * rate
            back = p.held_quote - paid
        self.free += back
        self.pos = None
        self.last_ts, self.last_px = ts, price
        self.trades.append(
            (
                p.entry_ts,
                entry_price,
                ts,
                price,
                p.units,
                p.side,
                p.entries,
                p.fees + fee,
                back - p.locked,
                reason,
                self.free,
            )
        )

    def on_mark(self, ts: int, price: float) -> None:
        self.last_ts, self.last_px = ts, price
        p = self.pos
        gain = self.cfg.percent_gain
        if p is None or gain is None:
            return
        target = self.entry_price() * (100.0 + p.side * gain) / 100.0
        if (p.side == 1 and price >= target) or (p.side == -1 and price <= target):
            self.close(ts, price, int(ExitReason.TAKE_PROFIT))

    def on_signal(self, ts: int, side: int, price: float) -> None:
        opens = -1 if self.cfg.mode == "SHORT" else 1
        multi = self.cfg.multi_entry or self.cfg.mode == "LONG_MULTI"
        if self.pos is None:
            if side == opens:
                self.enter(ts, side, price)
            else:
                self.ignored += 1
        elif side == self.pos.side:
            if multi:
                self.enter(ts, side, price)
            else:
                self.ignored += 1
        else:
            self.close(ts, price, int(ExitReason.SIGNAL))


def reference_run(
    signals: list[Signal],
    marks: list[Mark],
    from_ms: int,
    to_ms: int,
    step: int,
    cfg: PortfolioConfig,
) -> tuple[_Reference, list[float]]:
    ref = _Reference(cfg, free=cfg.initial_funding)
    events = [(ts, 0, i, 0, px) for i, (ts, px) in enumerate(marks) if from_ms <= ts < to_ms]
    events += [
        (ts, 1, i, side, px) for i, (ts, side, px) in enumerate(signals) if from_ms <= ts < to_ms
    ]
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    grid = list(range(from_ms, to_ms, step))
    curve: list[float] = []
    for ts, kind, _, side, px in events:
        while len(curve) < len(grid) and grid[len(curve)] <= ts:
            curve.append(ref.equity())
        if kind == 0:
            ref.on_mark(ts, px)
        else:
            ref.on_signal(ts, side, px)
    while len(curve) < len(grid):
        curve.append(ref.equity())
    if ref.pos is not None:
        assert ref.last_px is not None
        ref.close(ref.last_ts, ref.last_px, int(ExitReason.END))
    curve.append(ref.free)
    return ref, curve


Scenario = tuple[list[Signal], list[Mark], int, dict[str, Any]]
prices = st.integers(2, 40).map(lambda k: k / 2)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    marks = sorted(
        draw(st.lists(st.tuples(st.integers(-2, 24).map(lambda s: s * 500), prices), max_size=40)),
        key=lambda m: m[0],
    )
    signals = sorted(
        draw(
            st.lists(
                st.tuples(
                    st.integers(-2, 24).map(lambda s: s * 500), st.sampled_from([1, -1]), prices
                ),
                max_size=25,
            )
        ),
        key=lambda s: s[0],
    )
    step = draw(st.sampled_from([500, 1_000, 1_500, 7_000]))
    cfg: dict[str, Any] = dict(
        buy_fee_rate=draw(st.sampled_from([0.0, 0.001, 0.01, 0.1])),
        sell_fee_rate=draw(st.sampled_from([0.0, 0.001, 0.01, 0.1])),
        fee_leg=draw(st.sampled_from(list(FeeLeg))),
        percent_amount_to_lock=draw(st.sampled_from([None, 25.0, 50.0, 100.0])),
        percent_gain=draw(st.sampled_from([None, 1.0, 5.0, 20.0])),
        multi_entry=draw(st.booleans()),
        initial_funding=draw(st.sampled_from([100.0, 1_000.0, 7.5])),
    )
    return signals, marks, step, cfg


@pytest.mark.parametrize("mode", list(ExecutionMode))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=scenarios())
def test_simulate_matches_reference_loop(mode: ExecutionMode, case: Scenario) -> None:
    signals, marks, step, cfg_kwargs = case
    cfg = PortfolioConfig(mode=mode, **cfg_kwargs)
    from_ms, to_ms = 0, 10_000
    got = run(signals, marks, from_ms=from_ms, to_ms=to_ms, step=step, **cfg_kwargs, mode=mode)
    ref, curve = reference_run(signals, marks, from_ms, to_ms, step, cfg)

    t = got.trades
    assert t.count == len(ref.trades)
    for k, row in enumerate(ref.trades):
        exact = (t.entry_ts[k], t.exit_ts[k], t.side[k], t.entries[k], t.exit_reason[k])
        assert tuple(int(v) for v in exact) == (row[0], row[2], row[5], row[6], row[9])
        approx = (
            t.entry_price[k],
            t.exit_price[k],
            t.qty[k],
            t.fees[k],
            t.pnl[k],
            t.equity_after[k],
        )
        expected = (row[1], row[3], row[4], row[7], row[8], row[10])
        assert [float(v) for v in approx] == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert got.ignored_signals == ref.ignored
    assert got.final_equity == pytest.approx(ref.free, rel=1e-9, abs=1e-9)
    assert got.equity.tolist() == pytest.approx(curve, rel=1e-9, abs=1e-9)
