"""No look-ahead from a prepare cadence (issue 14 point 1), as a property over every pair of
(native source interval, prepare cadence): every prepare the cadence rule accepts yields bars
that close no earlier than the last instant of every source bar they contain, and every
cadence that would break this is refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.domain.marketdata import DataKind
from backtestd.engine.cadence import (
    CADENCE_MS,
    KLINE_CADENCES,
    allowed_cadences,
    resolve_cadence,
    source_width,
    width_of,
)
from backtestd.engine.prepare import assemble
from backtestd.marketdata.ingest.binance import KLINE_INTERVALS
from backtestd.marketdata.ingest.hourly import split_hours

# Binance opens bars at epoch multiples of their interval (UTC midnight for 1d).
START_2017 = 1_483_228_800_000  # 2017-01-01T00:00:00Z


@st.composite
def source_and_cadence(draw: st.DrawFn) -> tuple[str, str, np.ndarray]:
    native = draw(st.sampled_from(KLINE_INTERVALS))
    native_ms = width_of(native)
    cadence = draw(st.sampled_from(KLINE_CADENCES))
    # Up to 60 bars of the native interval, some missing (exchanges omit empty bars).
    first = draw(st.integers(min_value=0, max_value=2_000)) + START_2017 // native_ms
    steps = draw(st.lists(st.integers(min_value=1, max_value=3), min_size=1, max_size=60))
    opens = (first + np.cumsum(steps)).astype(np.int64) * native_ms
    return native, cadence, opens


@settings(max_examples=400, deadline=None)
@given(source_and_cadence())
def test_no_accepted_prepare_closes_a_bar_before_its_source_bars_end(
    case: tuple[str, str, np.ndarray],
) -> None:
    native, cadence, opens = case
    native_ms = width_of(native)
    if cadence not in allowed_cadences("kline", native_ms):
        with pytest.raises(ValueError, match="use one of"):
            resolve_cadence("kline", cadence, native_ms)
        return
    label, cadence_ms = resolve_cadence("kline", cadence, native_ms)
    price = np.linspace(100.0, 101.0, opens.size)
    columns = {
        "ts": opens,
        "open": price,
        "high": price + 1,
        "low": price - 1,
        "close": price,
        "volume": np.ones(opens.size),
    }
    frames = split_hours(DataKind.KLINES, columns)
    out = assemble("kline", frames, cadence_ms)
    # Map every source bar to the prepared bar holding it (independently of the kernel:
    # the prepared bar is the last one opening at or before the source bar's open).
    holder = np.searchsorted(out["ts"], opens, side="right") - 1
    assert bool(np.all(holder >= 0))
    last_source_instant = opens + native_ms - 1
    assert bool(np.all(out["closeTs"][holder] >= last_source_instant)), (native, label)
    assert bool(np.all(out["ts"][holder] <= opens))


@pytest.mark.parametrize("native", KLINE_INTERVALS)
def test_every_finer_or_non_multiple_cadence_would_look_ahead(native: str) -> None:
    """The refused cadences are exactly those where some bar would close early."""
    native_ms = width_of(native)
    allowed = set(allowed_cadences("kline", native_ms))
    for label in KLINE_CADENCES:
        width = CADENCE_MS[label]
        # A source bar opening at an epoch multiple of native_ms, say k*native_ms, lands in
        # bucket floor(k*native_ms / width); it closes early when that bucket ends before it.
        early = any(
            (k * native_ms // width * width) + width - 1 < k * native_ms + native_ms - 1
            for k in range(1, 400)
        )
        assert (label not in allowed) == early, (native, label)


def test_mixed_source_intervals_use_their_least_common_multiple() -> None:
    """Over 3m and 5m bars, a 5m prepare would close the 00:03 bar at 00:04:59.999."""
    native = source_width(["3m", "5m"])
    assert native == 15 * 60_000
    assert allowed_cadences("kline", native)[0] == "15m"
    three_minute_bar_open = 3 * 60_000
    five_minute_bucket_close = three_minute_bar_open // 300_000 * 300_000 + 300_000 - 1
    assert five_minute_bucket_close < three_minute_bar_open + 180_000 - 1  # would look ahead
    with pytest.raises(ValueError, match="use one of 15m, 30m, 1h"):
        resolve_cadence("kline", "5m", native)
