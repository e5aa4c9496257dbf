"""The ``sim`` exchange: a deterministic, on-demand source of hourly market data.

Every frame is a pure function of ``(seed, instrument, kind, hour)``: hourly anchors come
from the cached block model (:mod:`.anchors`), everything inside an hour from streams keyed
by that hour. ``coverage_start`` only decides which hours the exchange *advertises*; it
never changes what an hour contains, so exchanges with different coverage agree.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import numpy as np

from backtestd.domain.marketdata import (
    DataKind,
    HourFrame,
    Instrument,
    hour_start,
)
from backtestd.marketdata.sim.anchors import AnchorModel, anchor_model, hourly_sigma
from backtestd.marketdata.sim.clock import EPOCH, hour_index, hour_ms_of, require_aware
from backtestd.marketdata.sim.funding import FUNDING_INTERVAL_HOURS, funding_rate
from backtestd.marketdata.sim.intrahour import GRID_STEPS, hour_path
from backtestd.marketdata.sim.klines import klines_from_tickers
from backtestd.marketdata.sim.ticks import simulate_tickers
from backtestd.marketdata.sim.universe import LISTINGS, Listing, listing_for

_ONE_HOUR = timedelta(hours=1)


class SimExchange:
    """Simulated exchange listing spot pairs and USDT-settled perpetuals (see docs)."""

    exchange_id: str = "sim"
    native_kline_interval: str = "1s"

    def __init__(self, coverage_start: datetime, seed: int = 0) -> None:
        require_aware(coverage_start, "coverage_start")
        start = hour_start(coverage_start)
        if start < EPOCH:
            raise ValueError(f"coverage_start must be at or after {EPOCH.isoformat()}")
        self.coverage_start = start
        self.seed = seed
        self._model: AnchorModel = anchor_model(seed)

    def instruments(self) -> list[Instrument]:
        return [listing.instrument for listing in LISTINGS]

    def kinds(self, instrument: Instrument) -> tuple[DataKind, ...]:
        """Kinds ``instrument`` has here; ``KeyError`` if it is not listed."""
        if listing_for(instrument).is_perpetual:
            return (DataKind.TICKERS, DataKind.KLINES, DataKind.FUNDING)
        return (DataKind.TICKERS, DataKind.KLINES)

    def coverage(
        self, instrument: Instrument, kind: DataKind, now: datetime
    ) -> tuple[datetime, datetime] | None:
        """``(first hour start, end of the last hour complete at now)``.

        ``None`` if the instrument is not listed, does not have ``kind``, or no hour has
        completed yet.
        """
        require_aware(now, "now")
        if not self._lists(instrument, kind):
            return None
        end = hour_start(now)
        return (self.coverage_start, end) if end > self.coverage_start else None

    def has_hour(
        self, instrument: Instrument, kind: DataKind, hour: datetime, now: datetime
    ) -> bool:
        """Whether ``hour`` (an hour start) is inside the coverage at ``now``.

        An hour inside coverage always "exists", even if its frame is empty (an outage, or
        a funding frame outside the settlement hours).
        """
        require_aware(hour, "hour")
        window = self.coverage(instrument, kind, now)
        if window is None or hour_start(hour) != hour:
            return False
        return window[0] <= hour and hour + _ONE_HOUR <= window[1]

    def generate(self, instrument: Instrument, kind: DataKind, hour: datetime) -> HourFrame:
        """The frame of one hour; ``KeyError`` for an unlisted instrument or missing kind.

        Any hour since the sim epoch can be generated, inside coverage or not; it is the
        caller's job (via :meth:`has_hour`) to serve only complete hours.
        """
        listing = listing_for(instrument)
        kind = self._kind(kind)
        if kind not in self.kinds(instrument):
            raise KeyError(f"{instrument} has no {kind} on the sim exchange")
        index = hour_index(hour)
        frame_hour = hour_start(hour)
        if kind is DataKind.FUNDING:
            return self._funding(listing, index, frame_hour)
        tickers = self._tickers(listing, index, frame_hour)
        return tickers if kind is DataKind.TICKERS else klines_from_tickers(tickers)

    # -- internals -------------------------------------------------------------------

    def _lists(self, instrument: Instrument, kind: DataKind) -> bool:
        try:
            return self._kind(kind) in self.kinds(instrument)
        except KeyError:
            return False

    @staticmethod
    def _kind(kind: DataKind | str) -> DataKind:
        try:
            return DataKind(kind)
        except ValueError:
            raise KeyError(f"unknown data kind {kind!r}") from None

    def _tickers(self, listing: Listing, index: int, frame_hour: datetime) -> HourFrame:
        model, asset = self._model, listing.asset
        start, end = model.log_price(asset, index), model.log_price(asset, index + 1)
        vol = model.vol_multiplier(index)
        path = hour_path(self.seed, asset.base, index, start, end, hourly_sigma(asset) * vol)
        log_price = path.log_price
        if listing.is_perpetual:
            first, last = model.basis(listing, index), model.basis(listing, index + 1)
            log_price = log_price + np.linspace(first, last, GRID_STEPS + 1)
        columns = simulate_tickers(
            self.seed,
            listing,
            index,
            hour_ms_of(index),
            path,
            log_price,
            model.activity_level(index),
            vol,
        )
        return HourFrame(DataKind.TICKERS, frame_hour, columns)

    def _funding(self, listing: Listing, index: int, frame_hour: datetime) -> HourFrame:
        if frame_hour.hour % FUNDING_INTERVAL_HOURS:
            return HourFrame.empty(DataKind.FUNDING, frame_hour)
        model, asset = self._model, listing.asset
        interval = range(max(index - FUNDING_INTERVAL_HOURS, 0), max(index, 1))
        basis = np.array([model.basis(listing, h) for h in interval])
        log_mark = model.log_price(asset, index) + model.basis(listing, index)
        scale = 10.0**listing.price_decimals
        mark = round(asset.ref_price * math.exp(log_mark) * scale) / scale
        columns = {
            "ts": np.array([hour_ms_of(index)], dtype=np.int64),
            "rate": np.array([funding_rate(basis)]),
            "markPrice": np.array([mark]),
        }
        return HourFrame(DataKind.FUNDING, frame_hour, columns)
