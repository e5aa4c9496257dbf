"""Per-second OHLCV bars aggregated from ticker rows.

Bars are derived from the very ticks of the ticker frame (never simulated separately), so a
backtest on klines and one on tickers see the same market. Only seconds with at least one
tick get a bar, as on exchanges that omit empty intervals.
"""

from __future__ import annotations

import numpy as np

from backtestd.domain.marketdata import DataKind, HourFrame


def klines_from_tickers(tickers: HourFrame) -> HourFrame:
    """1-second bars of a ticker frame: open/close are the first/last ``last`` price of the
    second, high/low its extremes and volume the sum of trade sizes."""
    if tickers.kind is not DataKind.TICKERS:
        raise ValueError(f"klines derive from a tickers frame, got {tickers.kind}")
    ts = tickers.columns["ts"]
    if len(ts) == 0:
        return HourFrame.empty(DataKind.KLINES, tickers.hour)
    price, size = tickers.columns["last"], tickers.columns["volume"]
    seconds, starts = np.unique(ts // 1000, return_index=True)
    ends = np.append(starts[1:], len(ts)) - 1
    columns = {
        "ts": seconds * 1000,
        "open": price[starts],
        "high": np.maximum.reduceat(price, starts),
        "low": np.minimum.reduceat(price, starts),
        "close": price[ends],
        "volume": np.add.reduceat(size, starts),
    }
    return HourFrame(DataKind.KLINES, tickers.hour, columns)
