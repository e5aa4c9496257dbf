"""Paper trading (``engine/paper.py``) against the backtest's kernel, and its own rules.

One instrument in one account, fed the kernel's marks and signals one at a time in the
kernel's event order, must give the kernel's closed trades bit for bit (every field: entry
and exit time and price, quantity, fees, PnL, entries, exit reason) in every mode, fee leg,
lock, take-profit and multi-entry setting. A backtest closes a position still open at the end
of its range (``END``); a live run has no end, so those trades are the only difference.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tests.unit.engine.test_kernel import cases

from backtestd.domain.paper import AccountsMode, PaperEventKind, PointKind
from backtestd.engine.fills import FeeLeg
from backtestd.engine.paper import PaperSettings, PaperSimulation, StrategyExecution
from backtestd.engine.portfolio import ExitReason, PortfolioConfig, simulate

SYMBOL = "BTC/USDT"
_REASONS = {"signal": ExitReason.SIGNAL, "take_profit": ExitReason.TAKE_PROFIT}


def _paper_of(cfg: PortfolioConfig, accounts: AccountsMode) -> PaperSimulation:
    lock = cfg.percent_amount_to_lock
    # a shared account always locks a share (10 % by default): not the kernel's whole balance
    assume(accounts is AccountsMode.INSTRUMENT or lock is not None)
    paper = PaperSimulation(
        PaperSettings(
            initial_funding=cfg.initial_funding,
            buy_fee_rate=cfg.buy_fee_rate,
            sell_fee_rate=cfg.sell_fee_rate,
            fee_leg=cfg.fee_leg,
            percent_amount_to_lock=lock,
            accounts=accounts,
        )
    )
    paper.configure(SYMBOL, StrategyExecution(cfg.mode.value, cfg.percent_gain, cfg.multi_entry))
    return paper


def _feed(paper: PaperSimulation, arrays: dict[str, np.ndarray]) -> list[dict[str, object]]:
    """The kernel's inputs as a live run delivers them: marks before signals of one ms."""
    events = [(int(t), 0, i) for i, t in enumerate(arrays["px_ts"])]
    events += [(int(t), 1, i) for i, t in enumerate(arrays["sig_ts"])]
    for ts, what, i in sorted(events):
        if what == 0:
            paper.price(SYMBOL, ts, float(arrays["px"][i]))
        else:
            paper.hint(SYMBOL, ts, int(arrays["sig_side"][i]), float(arrays["sig_price"][i]))
    produced, _ = paper.drain()
    return [dict(e.data) for e in produced if e.kind is PaperEventKind.TRADE]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), accounts=st.sampled_from(list(AccountsMode)))
def test_one_instrument_gives_the_kernels_closed_trades_bit_for_bit(
    case: tuple[dict[str, np.ndarray], int, int, PortfolioConfig], accounts: AccountsMode
) -> None:
    arrays, _, origin, cfg = case
    paper = _paper_of(cfg, accounts)
    trades = _feed(paper, arrays)
    ref = simulate(
        **arrays, from_ms=origin - 1_000, to_ms=origin + 11_000, grid_step_ms=1_000, config=cfg
    ).trades
    closed = [k for k in range(ref.count) if ref.exit_reason[k] != ExitReason.END]
    assert len(trades) == len(closed)
    for got, k in zip(trades, closed, strict=True):
        assert got["entry_ts_ms"] == ref.entry_ts[k]
        assert got["entry_price"] == ref.entry_price[k]
        assert got["exit_price"] == ref.exit_price[k]
        assert got["base"] == ref.qty[k]
        assert (1 if got["side"] == "long" else -1) == ref.side[k]
        assert got["entries"] == ref.entries[k]
        assert got["fees"] == ref.fees[k]
        assert got["pnl"] == ref.pnl[k]
        assert _REASONS[str(got["exit_reason"])] == ref.exit_reason[k]
    view = paper.views()
    if closed:
        (account,) = view
        # the account adds each closed trade's PnL as it closes: the same sum in the same
        # order, bit for bit (an exact sum differs by rounding when trades nearly cancel)
        realised = 0.0
        for k in closed:
            realised += float(ref.pnl[k])
        assert account.realised_pnl == realised
        assert account.trades == len(closed)
        still_open = ref.count > len(closed)
        assert len(account.open_positions) == int(still_open)
        if not still_open:  # flat: the free balance is the kernel's cash, bit for bit
            assert paper.accounts[account.instrument or "USDT"].free == ref.equity_after[-1]


def _simulation(**overrides: object) -> PaperSimulation:
    base: dict[str, object] = {
        "initial_funding": 1000.0,
        "buy_fee_rate": 0.0,
        "sell_fee_rate": 0.0,
        "fee_leg": FeeLeg.QUOTE,
    }
    return PaperSimulation(PaperSettings(**{**base, **overrides}))  # type: ignore[arg-type]


def test_a_shared_account_locks_a_share_of_its_free_balance_per_entry() -> None:
    """§6.2: 1000 and 20 %: the first entry locks 200, a concurrent one 20 % of 800 = 160."""
    paper = _simulation(percent_amount_to_lock=20.0)
    paper.hint("BTC/USDT", 1_000, 1, 10.0)
    paper.hint("ETH/USDT", 2_000, 1, 4.0)
    paper.hint("ETH/BTC", 3_000, 1, 0.05)
    (usdt, btc) = paper.views()
    assert (usdt.currency, btc.currency) == ("USDT", "BTC")
    assert [p.cost for p in usdt.open_positions] == [200.0, 160.0]
    assert [p.base for p in usdt.open_positions] == [20.0, 40.0]
    assert [p.cost for p in btc.open_positions] == [200.0]  # its own 1000, never summed
    assert paper.accounts["USDT"].free == 640.0
    assert [i.instrument for i in usdt.instruments or ()] == ["BTC/USDT", "ETH/USDT"]


def test_default_lock_is_ten_percent_shared_and_everything_isolated() -> None:
    shared = _simulation()
    shared.hint("BTC/USDT", 1_000, 1, 10.0)
    assert shared.views()[0].open_positions[0].cost == 100.0
    isolated = _simulation(accounts=AccountsMode.INSTRUMENT)
    isolated.hint("BTC/USDT", 1_000, 1, 10.0)
    isolated.hint("ETH/USDT", 1_000, 1, 10.0)
    views = isolated.views()
    assert [(v.instrument, v.currency) for v in views] == [
        ("BTC/USDT", "USDT"),
        ("ETH/USDT", "USDT"),
    ]
    assert [v.open_positions[0].cost for v in views] == [1000.0, 1000.0]
    assert all(v.instruments is None for v in views)


def test_marks_once_a_minute_at_the_prices_before_it_while_a_position_is_open() -> None:
    paper = _simulation(percent_amount_to_lock=50.0)
    paper.price("BTC/USDT", 59_000, 10.0)
    paper.hint("BTC/USDT", 59_000, 1, 10.0)  # 500 USDT -> 50 BTC
    paper.price("BTC/USDT", 59_500, 12.0)
    (account,) = paper.views()
    assert account.unrealised_pnl is None  # opened after the last mark: not valued yet
    paper.price("BTC/USDT", 61_000, 13.0)  # the first price of minute 1: a mark at 60 000
    paper.price("BTC/USDT", 62_000, 14.0)  # same minute: no second mark
    events, points = paper.drain()
    marks = [e for e in events if e.kind is PaperEventKind.MARK]
    assert [(m.ts_ms, m.symbol) for m in marks] == [(60_000, None)]
    assert marks[0].data == {
        "currency": "USDT",
        "equity": 500.0 + 50 * 12.0,
        "realised_pnl": 0.0,
        "unrealised_pnl": 100.0,
        "open_positions": 1,
    }
    assert [(p.kind, p.ts_ms, p.value) for p in points if p.kind is PointKind.MARK] == [
        (PointKind.MARK, 60_000, 1100.0)
    ]
    (account,) = paper.views()
    assert (account.equity, account.equity_kind, account.equity_at_ms) == (1100.0, "mark", 60_000)
    assert (account.unrealised_pnl, account.total_pnl) == (100.0, 100.0)
    position = account.open_positions[0]
    assert (position.mark_price, position.marked_at_ms, position.unrealised_pnl) == (
        12.0,
        60_000,
        100.0,
    )
    paper.hint("BTC/USDT", 62_000, -1, 14.0)  # close: +200 realised, flat, no more marks
    paper.price("BTC/USDT", 125_000, 9.0)
    events, points = paper.drain()
    assert [e.kind for e in events] == [
        PaperEventKind.FILL,
        PaperEventKind.TRADE,
        PaperEventKind.EQUITY,
        PaperEventKind.KPI,
    ]
    assert events[2].data == {"currency": "USDT", "equity": 1200.0}
    (account,) = paper.views()
    assert (account.realised_pnl, account.unrealised_pnl, account.total_pnl) == (200.0, 0.0, 200.0)
    assert account.kpi is not None
    assert (account.kpi.total_trades, account.kpi.win_rate, account.kpi.pnl_total) == (
        1,
        1.0,
        200.0,
    )
    assert account.kpi.sharpe_ratio is None  # one trade is not enough
    assert account.kpi.max_drawdown == 0.0


def test_a_restart_turns_open_positions_into_gaps_and_keeps_what_was_closed() -> None:
    paper = _simulation(percent_amount_to_lock=50.0)
    paper.hint("BTC/USDT", 1_000, 1, 10.0)
    paper.hint("BTC/USDT", 2_000, -1, 11.0)  # +50
    paper.hint("ETH/USDT", 3_000, 1, 5.0)  # 525 locked, open at the restart
    text = json.dumps(paper.to_state())
    paper.drain()
    again = PaperSimulation(paper.settings, json.loads(text))
    assert again.to_state() == paper.to_state()
    again.restart(4_000)
    events, points = again.drain()
    assert [(e.kind, e.symbol, e.ts_ms) for e in events] == [
        (PaperEventKind.GAP, "ETH/USDT", 4_000)
    ]
    assert events[0].data == {"currency": "USDT", "base": 105.0, "cost": 525.0}
    assert [(p.kind, p.instrument) for p in points] == [(PointKind.GAP, "ETH/USDT")]
    (account,) = again.views()
    assert (account.trades, account.realised_pnl, account.gaps) == (1, 50.0, 1)
    assert account.open_positions == ()
    assert again.accounts["USDT"].free == 1050.0  # the lost position's capital is free again
    assert points[0].seq == paper.next_seq  # the curve's numbering carries on


def test_sharpe_and_sortino_are_per_trade_and_unannualised() -> None:
    paper = _simulation(percent_amount_to_lock=100.0)
    for k, (buy, sell) in enumerate([(10.0, 11.0), (10.0, 9.0), (10.0, 12.0)]):
        paper.hint("BTC/USDT", 1_000 + 10 * k, 1, buy)
        paper.hint("BTC/USDT", 1_005 + 10 * k, -1, sell)
    (account,) = paper.views()
    kpi = account.kpi
    assert kpi is not None
    returns = [0.1, -0.1, 0.2]
    mean = sum(returns) / 3
    std = math.sqrt(sum((r - mean) ** 2 for r in returns) / 2)
    down = math.sqrt(0.01 / 3)
    assert kpi.sharpe_ratio == pytest.approx(mean / std, rel=1e-12)
    assert kpi.sortino_ratio == pytest.approx(mean / down, rel=1e-12)
    assert (kpi.win_count, kpi.loss_count) == (2, 1)
    assert kpi.max_drawdown == pytest.approx(110.0, rel=1e-12)  # 1100 -> 990
    assert kpi.max_drawdown_percent == pytest.approx(10.0, rel=1e-12)
    assert kpi.pnl_total == pytest.approx(1188.0 - 1000.0, rel=1e-12)
