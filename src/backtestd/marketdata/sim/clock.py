"""Hour indexing and intraday/weekly seasonality shared by every simulated instrument.

All hourly state is indexed by whole hours since a fixed epoch rather than since the
exchange's ``coverage_start``: that is what makes an hour's content independent of when
coverage begins, so two exchanges with different coverage windows agree on shared hours.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from backtestd.domain.marketdata import HOUR_MS, hour_start

EPOCH = datetime(2018, 1, 1, tzinfo=UTC)  # a Monday; the simulated market starts here
EPOCH_MS = int(EPOCH.timestamp()) * 1000
HOURS_PER_YEAR = 24 * 365

# Activity peaks when Europe and the US overlap (~15:00 UTC) and is thinnest ~03:00 UTC.
_PEAK_HOUR = 15.0
_ACTIVITY_DAILY_AMPLITUDE = 0.4
_ACTIVITY_WEEKEND = 0.65
_VOL_DAILY_AMPLITUDE = 0.2
_VOL_WEEKEND = 0.8


def require_aware(moment: datetime, name: str) -> None:
    """Reject naive datetimes: truncating them would silently use the host's time zone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must be an aware datetime (UTC), got naive {moment!r}")


def hour_index(hour: datetime) -> int:
    """Whole hours from :data:`EPOCH` to ``hour``, which must be an aware hour start."""
    require_aware(hour, "hour")
    if hour_start(hour) != hour:
        raise ValueError(f"hour must be the start of a UTC hour, got {hour.isoformat()}")
    index = (int(hour.timestamp()) * 1000 - EPOCH_MS) // HOUR_MS
    if index < 0:
        raise ValueError(f"the sim exchange has no data before {EPOCH.isoformat()}")
    return index


def hour_ms_of(index: int) -> int:
    """Epoch milliseconds of the start of hour ``index``."""
    return EPOCH_MS + index * HOUR_MS


def _daily_wave(hours: np.ndarray) -> np.ndarray:
    hour_of_day = hours % 24
    return np.cos(2.0 * np.pi * (hour_of_day - _PEAK_HOUR) / 24.0)


def _is_weekend(hours: np.ndarray) -> np.ndarray:
    return (hours // 24) % 7 >= 5  # the epoch is a Monday, so days 5 and 6 are Sat/Sun


def activity_season(hours: np.ndarray) -> np.ndarray:
    """Multiplier of tick arrival intensity by hour of day and weekday (about 0.2 to 1.4)."""
    daily = 1.0 + _ACTIVITY_DAILY_AMPLITUDE * _daily_wave(hours)
    return np.where(_is_weekend(hours), _ACTIVITY_WEEKEND, 1.0) * daily


def vol_season(hours: np.ndarray) -> np.ndarray:
    """Multiplier of hourly volatility; milder than activity, as in real crypto markets."""
    daily = 1.0 + _VOL_DAILY_AMPLITUDE * _daily_wave(hours)
    return np.where(_is_weekend(hours), _VOL_WEEKEND, 1.0) * daily
