"""Which live feeds this deployment offers, and building them.

``GET /exchanges`` lists an exchange's ``liveSegments`` from :func:`live_segments`, and the
start of a live run refuses (400) a source whose exchange and segment are not listed there
(live-execution spec §7.18): a segment is listed only if a feed for it exists here.

* ``sim`` — spot, whenever the sim exchange is enabled (``BACKTESTD_SIM_ENABLED``). Its
  futures would work the same way but are not offered: a live source names ``BASE/QUOTE``
  pairs, which only the spot segment lists.
* ``binance`` — spot, when ``BACKTESTD_LIVE_BINANCE_ENABLED`` is set (it needs to reach
  ``BACKTESTD_LIVE_BINANCE_URL``).
"""

from __future__ import annotations

import threading

from backtestd.domain.marketdata import Segment
from backtestd.marketdata.live.binance_feed import EXCHANGE_ID as BINANCE
from backtestd.marketdata.live.binance_feed import BinanceSpotFeed
from backtestd.marketdata.live.clock import MarketClock
from backtestd.marketdata.live.feed import LiveFeed
from backtestd.marketdata.live.recorder import HourRecorder
from backtestd.marketdata.live.sim_feed import SimLiveFeed, sim_hours
from backtestd.marketdata.sources import GeneratingSource, build_sources
from backtestd.marketdata.store import HourlyStore
from backtestd.settings import Settings

SIM = "sim"


def live_segment_map(settings: Settings) -> dict[str, list[str]]:
    """Exchange id -> the segments with a live feed here (exchanges without one left out)."""
    offered: dict[str, list[str]] = {}
    if settings.sim_enabled:
        offered[SIM] = [Segment.SPOT.value]
    if settings.live_binance_enabled:
        offered[BINANCE] = [Segment.SPOT.value]
    return offered


def live_segments(exchange_id: str, settings: Settings) -> list[str]:
    """The segments of ``exchange_id`` a live run can be fed from (``[]``: none)."""
    return live_segment_map(settings).get(exchange_id, [])


def live_feed_for(
    exchange_id: str,
    segment: str,
    settings: Settings,
    *,
    store: HourlyStore | None = None,
    clock: MarketClock | None = None,
    sources: dict[str, GeneratingSource] | None = None,
) -> LiveFeed | None:
    """A feed for one exchange segment, or ``None`` if :func:`live_segments` does not list it.

    ``store`` is the service's hourly store: the sim feed reads complete hours through it (the
    very rows downloads serve) and the binance feed replays and records hours in it. ``clock``
    is the deployment's market clock (one per process, from :meth:`MarketClock.from_settings`;
    built here if not given); the binance feed always runs on real time. ``sources`` are the
    store's generating sources (built from ``settings`` if not given).
    """
    if segment not in live_segments(exchange_id, settings):
        return None
    if exchange_id == SIM:
        all_sources = sources if sources is not None else build_sources(settings)
        source = all_sources[SIM]
        return SimLiveFeed(
            source,
            Segment(segment),
            clock or MarketClock.from_settings(settings),
            sim_hours(source, store),
        )
    recorder = HourRecorder(store, BINANCE) if store is not None else None
    return BinanceSpotFeed(
        settings.live_binance_url, clock=MarketClock(), store=store, recorder=recorder
    )


class LiveFeeds:
    """The deployment's live feeds, built once per process: one market clock for every run, and
    one feed per exchange segment shared by every run on it (a feed keeps no per-stream state;
    sharing the binance feed shares its recorder, so a run's warm-up can replay what another run
    on the same pair has received but not yet written).

    It is also the ``live_segments(exchange)`` lookup the start route's checks need.
    """

    def __init__(
        self,
        settings: Settings,
        store: HourlyStore | None = None,
        sources: dict[str, GeneratingSource] | None = None,
        clock: MarketClock | None = None,
    ) -> None:
        self._settings = settings
        self._store = store
        self._sources = sources
        self.clock = clock or MarketClock.from_settings(settings)
        self._feeds: dict[tuple[str, str], LiveFeed] = {}
        self._lock = threading.Lock()

    def live_segments(self, exchange_id: str) -> list[str]:
        return live_segments(exchange_id, self._settings)

    def feed_for(self, exchange_id: str, segment: str) -> LiveFeed | None:
        """The shared feed of one exchange segment; ``None`` if it is not offered here."""
        key = (exchange_id, segment)
        with self._lock:
            feed = self._feeds.get(key)
            if feed is None:
                feed = live_feed_for(
                    exchange_id,
                    segment,
                    self._settings,
                    store=self._store,
                    clock=self.clock,
                    sources=self._sources,
                )
                if feed is None:
                    return None
                self._feeds[key] = feed
            return feed
