"""Funding settlements of a perpetual: one row at 00:00, 08:00 and 16:00 UTC.

The rate follows the usual exchange formula in spirit: a fixed interest component plus the
average premium of the perpetual over spot during the funding interval. Because the basis
leans with the trend regime, funding is positive in up-trends and turns negative in
down-trends, as longs or shorts crowd the book.
"""

from __future__ import annotations

import numpy as np

FUNDING_INTERVAL_HOURS = 8
INTEREST_RATE = 1e-4  # per interval, the 0.01% most exchanges default to
PREMIUM_WEIGHT = 0.8
RATE_CAP = 3e-3
_RATE_DECIMALS = 8


def is_settlement_hour(hour_of_day: int) -> bool:
    return hour_of_day % FUNDING_INTERVAL_HOURS == 0


def funding_rate(basis_over_interval: np.ndarray) -> float:
    """Rate for one settlement from the hourly basis anchors of the interval before it."""
    premium = float(np.mean(basis_over_interval))
    rate = min(max(INTEREST_RATE + PREMIUM_WEIGHT * premium, -RATE_CAP), RATE_CAP)
    return round(rate, _RATE_DECIMALS)
