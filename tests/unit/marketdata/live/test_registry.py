"""Which live feeds a deployment offers (GET /exchanges liveSegments) and building them."""

from __future__ import annotations

from backtestd.marketdata.live import (
    LiveFeeds,
    MarketClock,
    live_feed_for,
    live_segment_map,
    live_segments,
)
from backtestd.marketdata.live.binance_feed import BinanceSpotFeed
from backtestd.marketdata.live.sim_feed import SimLiveFeed
from backtestd.settings import Settings


def test_sim_spot_is_offered_by_default_and_binance_only_when_enabled() -> None:
    settings = Settings()
    assert live_segment_map(settings) == {"sim": ["spot"]}
    assert live_segments("sim", settings) == ["spot"]
    assert live_segments("binance", settings) == []
    enabled = Settings(live_binance_enabled=True)
    assert live_segment_map(enabled) == {"sim": ["spot"], "binance": ["spot"]}
    assert live_segments("sim", Settings(sim_enabled=False)) == []


def test_feeds_exist_exactly_for_the_listed_segments() -> None:
    settings = Settings(live_clock_rate=20)
    sim = live_feed_for("sim", "spot", settings)
    assert isinstance(sim, SimLiveFeed)
    assert sim.clock.rate == 20
    assert live_feed_for("sim", "futures", settings) is None
    assert live_feed_for("binance", "spot", settings) is None
    assert live_feed_for("kraken", "spot", settings) is None
    shared = MarketClock(rate=5)
    with_shared = live_feed_for("sim", "spot", settings, clock=shared)
    assert with_shared is not None
    assert with_shared.clock is shared


def test_binance_feed_runs_on_real_time_whatever_the_clock_rate() -> None:
    settings = Settings(
        live_binance_enabled=True, live_binance_url="ws://127.0.0.1:9/", live_clock_rate=50
    )
    feed = live_feed_for("binance", "spot", settings)
    assert isinstance(feed, BinanceSpotFeed)
    assert feed.clock.rate == 1.0
    assert feed.url == "ws://127.0.0.1:9"


def test_live_feeds_share_one_clock_and_one_feed_per_segment() -> None:
    feeds = LiveFeeds(Settings(live_clock_rate=20, live_binance_enabled=True))
    assert feeds.clock.rate == 20
    sim = feeds.feed_for("sim", "spot")
    assert sim is not None
    assert sim.clock is feeds.clock
    assert feeds.feed_for("sim", "spot") is sim
    binance = feeds.feed_for("binance", "spot")
    assert isinstance(binance, BinanceSpotFeed)
    assert binance.clock is not feeds.clock  # the exchange runs on real time
    assert feeds.feed_for("sim", "futures") is None
    assert feeds.live_segments("binance") == ["spot"]
    assert feeds.live_segments("kraken") == []
