"""Fee arithmetic of a single fill, one function per kind of fill.

Each function does one fill and nothing else, so ``docs/metrics.md`` can describe the fee
rules as a table of four lines and the simulator never branches on the fee leg itself.
Every fill follows one rule: the fee is ``rate * notional``, where the notional is the amount
actually exchanged at the fill price and the fee is valued in quote at that price. The fee
leg only decides which asset pays it. A fee paid in the asset received comes out of what is
received. A fee paid in the asset spent comes out of the same budget, which means the
notional shrinks so that notional plus fee equals the budget. A fee is never paid on top of
the budget, so a run that locks the whole free balance never needs cash it does not have.
"""

from __future__ import annotations

import enum


class FeeLeg(enum.StrEnum):
    """Which asset pays the fee (wire enum of ``SweepBaseConfig.feeLeg``)."""

    RECEIVED = "RECEIVED"
    BASE = "BASE"
    QUOTE = "QUOTE"


def fee_in_base(leg: FeeLeg, *, is_buy: bool) -> bool:
    """Whether the fee of a buy (``is_buy``) or a sell is paid in the base asset.

    A buy receives base and a sell receives quote, which is what ``RECEIVED`` follows.

    >>> fee_in_base(FeeLeg.RECEIVED, is_buy=True), fee_in_base(FeeLeg.RECEIVED, is_buy=False)
    (True, False)
    >>> fee_in_base(FeeLeg.QUOTE, is_buy=True)
    False
    """
    if leg is FeeLeg.RECEIVED:
        return is_buy
    return leg is FeeLeg.BASE


def buy_with_quote(
    amount: float, price: float, rate: float, *, base_fee: bool
) -> tuple[float, float]:
    """Spend exactly ``amount`` quote on base: this opens or adds to a long.

    Returns ``(base received, fee valued in quote)``.

    >>> buy_with_quote(100.0, 10.0, 0.01, base_fee=True)
    (9.9, 1.0)
    >>> base, fee = buy_with_quote(101.0, 10.0, 0.01, base_fee=False)
    >>> round(base, 12), round(fee, 12)
    (10.0, 1.0)
    """
    if base_fee:
        gross = amount / price
        return gross - gross * rate, amount * rate
    notional = amount / (1.0 + rate)
    return notional / price, notional * rate


def sell_base(qty: float, price: float, rate: float, *, base_fee: bool) -> tuple[float, float]:
    """Sell all of ``qty`` base held: this closes a long.

    Returns ``(quote received, fee valued in quote)``. With the fee in base, part of the
    quantity pays the fee, so less than ``qty`` is sold.

    >>> sell_base(10.0, 11.0, 0.01, base_fee=False)
    (108.9, 1.1)
    >>> quote, fee = sell_base(10.1, 10.0, 0.01, base_fee=True)
    >>> round(quote, 12), round(fee, 12)
    (100.0, 1.0)
    """
    if base_fee:
        notional = qty / (1.0 + rate) * price
        return notional, notional * rate
    notional = qty * price
    return notional - notional * rate, notional * rate


def sell_short(
    amount: float, price: float, rate: float, *, base_fee: bool
) -> tuple[float, float, float]:
    """Borrow base and sell ``amount`` quote worth of it: this opens or adds to a short.

    Returns ``(base owed, quote received, fee valued in quote)``. With the fee in base, the
    fee is borrowed too, so the debt is larger than the quantity sold.

    >>> sell_short(100.0, 10.0, 0.01, base_fee=False)
    (10.0, 99.0, 1.0)
    >>> sell_short(100.0, 10.0, 0.01, base_fee=True)
    (10.1, 100.0, 1.0)
    """
    sold = amount / price
    if base_fee:
        return sold + sold * rate, amount, amount * rate
    return sold, amount - amount * rate, amount * rate


def buy_base(qty: float, price: float, rate: float, *, base_fee: bool) -> tuple[float, float]:
    """Buy back exactly ``qty`` base owed: this covers a short.

    Returns ``(quote paid, fee valued in quote)``. With the fee in base, more than ``qty``
    is bought so that ``qty`` remains after the fee.

    >>> paid, fee = buy_base(9.9, 10.0, 0.01, base_fee=True)
    >>> round(paid, 12), round(fee, 12)
    (100.0, 1.0)
    >>> buy_base(10.0, 10.0, 0.01, base_fee=False)
    (101.0, 1.0)
    """
    if base_fee:
        notional = qty / (1.0 - rate) * price
        return notional, notional * rate
    notional = qty * price
    return notional + notional * rate, notional * rate
