"""Synthesise a best bid/ask for every trade, because the public archive has no order book.

A trade tells us one side of the book exactly: when the buyer is the maker, a seller hit the
resting bid, so the trade price *was* the bid (and its quantity what was taken there);
otherwise a buyer lifted the ask. The other side is the price of the most recent trade on
that side, carried forward. Two things make that carry imperfect, and both are resolved
towards a sane, never-crossed quote rather than towards invented precision:

* before the first trade of a side there is nothing to carry: that side is the trade price
  itself, with size 0 ("no size observed");
* a carried price may cross the trade just seen (the market moved through it): the carried
  side is then pulled to the trade price, again with size 0.

Hence ``bid <= ask`` on every row, and a size is non-zero exactly when its price was
actually traded on that side.
"""

from __future__ import annotations

import numpy as np


def quotes_from_trades(
    price: np.ndarray, qty: np.ndarray, buyer_maker: np.ndarray
) -> dict[str, np.ndarray]:
    """``bid``, ``bidSize``, ``ask``, ``askSize`` per trade; inputs must be in time order."""
    price = np.asarray(price, dtype=np.float64)
    qty = np.asarray(qty, dtype=np.float64)
    hit_bid = np.asarray(buyer_maker, dtype=bool)
    bid, bid_size = _carry(price, qty, hit_bid)
    ask, ask_size = _carry(price, qty, ~hit_bid)
    crossed = bid > ask
    stale_bid = crossed & ~hit_bid  # a buy printed below the carried bid
    stale_ask = crossed & hit_bid  # a sell printed above the carried ask
    bid[stale_bid] = price[stale_bid]
    bid_size[stale_bid] = 0.0
    ask[stale_ask] = price[stale_ask]
    ask_size[stale_ask] = 0.0
    return {"bid": bid, "bidSize": bid_size, "ask": ask, "askSize": ask_size}


def _carry(
    price: np.ndarray, qty: np.ndarray, on_side: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Price and size of the latest trade on one side at each row (the row itself if on it)."""
    index = np.arange(price.size)
    latest = np.maximum.accumulate(np.where(on_side, index, -1)) if price.size else index
    seen = latest >= 0
    source = np.where(seen, latest, index)
    side_price = price[source]
    side_size = np.where(seen, qty[source], 0.0)
    return side_price, side_size
