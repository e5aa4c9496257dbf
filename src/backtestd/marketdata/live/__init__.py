"""Live market feeds: one update per instrument and market second for live runs.

See docs/live-feeds.md. The service builds one :class:`LiveFeeds` per process; a live run asks it
for the feed of its source and iterates :meth:`LiveFeed.stream`; ``GET /exchanges`` lists
:func:`live_segments`.
"""

from backtestd.marketdata.live.clock import MarketClock
from backtestd.marketdata.live.feed import LiveEvent, LiveFeed, LiveGap, LiveUpdate, value_columns
from backtestd.marketdata.live.registry import (
    LiveFeeds,
    live_feed_for,
    live_segment_map,
    live_segments,
)

__all__ = [
    "LiveEvent",
    "LiveFeed",
    "LiveFeeds",
    "LiveGap",
    "LiveUpdate",
    "MarketClock",
    "live_feed_for",
    "live_segment_map",
    "live_segments",
    "value_columns",
]
