"""Exchange messages become one update per instrument and second (docs/live-feeds.md)."""

from __future__ import annotations

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.marketdata.live.binance_messages import Kline
from backtestd.marketdata.live.feed import LiveUpdate
from backtestd.marketdata.live.per_second import KlineSeconds, TickerSeconds

BTC, ETH = Instrument.parse("BTC/USDT"), Instrument.parse("ETH/USDT")
T0 = 1_780_000_000_000  # a whole second


def test_ticker_second_carries_its_last_quote_last_trade_and_summed_volume() -> None:
    seconds = TickerSeconds([BTC])
    seconds.quote(BTC, (100.0, 1.0, 101.0, 2.0), T0 + 100)
    seconds.trade(BTC, 100.5, 0.25, T0 + 200)
    seconds.quote(BTC, (100.1, 1.5, 101.1, 2.5), T0 + 300)
    seconds.trade(BTC, 101.1, 0.5, T0 + 400)
    assert seconds.due(T0 + 999) == []  # the second is not over yet
    assert seconds.due(T0 + 1000) == [
        LiveUpdate(BTC, DataType.TICKER, T0 + 400, (100.1, 1.5, 101.1, 2.5, 101.1, 0.75))
    ]
    assert seconds.due(T0 + 5000) == []  # published once


def test_ticker_second_without_trades_keeps_the_last_price_and_has_zero_volume() -> None:
    seconds = TickerSeconds([BTC])
    seconds.trade(BTC, 100.5, 0.25, T0 + 100)
    seconds.quote(BTC, (100.0, 1.0, 101.0, 2.0), T0 + 200)
    seconds.quote(BTC, (99.0, 1.0, 100.0, 2.0), T0 + 1500)  # closes the first second
    seconds.quote(BTC, (98.0, 1.0, 99.0, 2.0), T0 + 3100)  # seconds 2 passes with no message
    assert seconds.due(T0 + 4000) == [
        LiveUpdate(BTC, DataType.TICKER, T0 + 200, (100.0, 1.0, 101.0, 2.0, 100.5, 0.25)),
        LiveUpdate(BTC, DataType.TICKER, T0 + 1500, (99.0, 1.0, 100.0, 2.0, 100.5, 0.0)),
        LiveUpdate(BTC, DataType.TICKER, T0 + 3100, (98.0, 1.0, 99.0, 2.0, 100.5, 0.0)),
    ]


def test_nothing_is_published_before_a_quote_and_a_trade_are_known() -> None:
    seconds = TickerSeconds([BTC])
    seconds.quote(BTC, (100.0, 1.0, 101.0, 2.0), T0 + 100)
    assert seconds.due(T0 + 1000) == []
    assert seconds.unpriced_seconds == 1


def test_interrupt_publishes_the_open_second_and_forgets_the_book() -> None:
    seconds = TickerSeconds([BTC, ETH])
    seconds.quote(ETH, (10.0, 1.0, 11.0, 1.0), T0 + 50)
    seconds.trade(ETH, 10.5, 3.0, T0 + 60)
    seconds.quote(BTC, (100.0, 1.0, 101.0, 2.0), T0 + 100)
    seconds.trade(BTC, 100.5, 0.25, T0 + 200)
    assert seconds.interrupt() == [
        LiveUpdate(ETH, DataType.TICKER, T0 + 60, (10.0, 1.0, 11.0, 1.0, 10.5, 3.0)),
        LiveUpdate(BTC, DataType.TICKER, T0 + 200, (100.0, 1.0, 101.0, 2.0, 100.5, 0.25)),
    ]
    seconds.trade(BTC, 100.7, 1.0, T0 + 5100)  # after the gap: no book known yet
    assert seconds.due(T0 + 7000) == []


def test_tickers_of_several_instruments_come_out_in_market_time_order() -> None:
    seconds = TickerSeconds([BTC, ETH])
    for instrument, at in ((BTC, 900), (ETH, 100), (BTC, 1200), (ETH, 1100)):
        seconds.quote(instrument, (1.0, 1.0, 2.0, 1.0), T0 + at)
        seconds.trade(instrument, 1.5, 1.0, T0 + at)
    got = [(u.instrument, u.ts_ms - T0) for u in seconds.due(T0 + 2000)]
    assert got == [(ETH, 100), (BTC, 900), (ETH, 1100), (BTC, 1200)]


def _bar(open_ms: int, close: float, closed: bool, symbol: str = "BTCUSDT") -> Kline:
    return Kline(symbol, open_ms, open_ms + 999, 1.0, 3.0, 0.5, close, 7.0, closed)


def test_a_closed_bar_is_published_with_its_last_values() -> None:
    klines = KlineSeconds([BTC])
    klines.bar(BTC, _bar(T0, 2.0, False))
    assert klines.due(T0 + 1500) == []  # not final yet: neither closed, later, nor past grace
    klines.bar(BTC, _bar(T0, 2.5, True))
    assert klines.due(T0 + 1500) == [
        LiveUpdate(BTC, DataType.KLINE, T0, (T0 + 999, 1.0, 3.0, 0.5, 2.5, 7.0))
    ]
    klines.bar(BTC, _bar(T0, 2.6, True))  # a repeat after publication is late, not a change
    assert klines.due(T0 + 9000) == []
    assert klines.late_messages == 1


def test_a_later_bar_or_the_grace_period_makes_a_bar_final() -> None:
    klines = KlineSeconds([BTC], grace_ms=2000)
    klines.bar(BTC, _bar(T0, 2.0, False))
    klines.bar(BTC, _bar(T0 + 1000, 2.1, False))
    assert [u.ts_ms for u in klines.due(T0 + 1100)] == [T0]
    assert klines.due(T0 + 3998) == []
    assert [u.ts_ms for u in klines.due(T0 + 3999)] == [T0 + 1000]  # close + grace


def test_bars_wait_for_every_instrument_so_they_leave_in_open_time_order() -> None:
    klines = KlineSeconds([BTC, ETH])
    klines.bar(ETH, _bar(T0, 2.0, False, "ETHUSDT"))
    klines.bar(BTC, _bar(T0, 2.0, True))
    klines.bar(BTC, _bar(T0 + 1000, 2.0, True))
    assert klines.due(T0 + 2100) == []  # ETH's bar of T0 is still open: it holds BTC back
    klines.bar(ETH, _bar(T0, 2.2, True, "ETHUSDT"))
    got = [(u.ts_ms - T0, u.instrument) for u in klines.due(T0 + 2100)]
    assert got == [(0, BTC), (0, ETH), (1000, BTC)]


def test_interrupt_drops_bars_that_are_not_final() -> None:
    klines = KlineSeconds([BTC])
    klines.bar(BTC, _bar(T0, 2.0, True))
    klines.bar(BTC, _bar(T0 + 1000, 2.0, False))
    assert [u.ts_ms for u in klines.interrupt()] == [T0]
    assert klines.due(T0 + 60_000) == []
