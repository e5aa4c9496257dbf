"""One-line summaries of a generated hour, for catalogues and sanity checks."""

from __future__ import annotations

import numpy as np

from backtestd.domain.marketdata import DataKind, HourFrame


def hour_stats(frame: HourFrame) -> tuple[float | None, float]:
    """``(last price, quote volume)`` of a tickers or klines frame.

    The last price is ``None`` for an empty hour. Quote volume values each trade (or bar)
    at its own price, which is exact for tickers and the usual close-price approximation
    for klines. Funding frames carry no trades: ``(mark price or None, 0.0)``.
    """
    if frame.rows == 0:
        return None, 0.0
    cols = frame.columns
    if frame.kind is DataKind.FUNDING:
        return float(cols["markPrice"][-1]), 0.0
    price = cols["last"] if frame.kind is DataKind.TICKERS else cols["close"]
    return float(price[-1]), float(np.dot(price, cols["volume"]))
