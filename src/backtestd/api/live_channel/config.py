"""Tunables of the live channel, with the spec's values as defaults (§5.1, §5.3, §5.4, §7).

Tests shrink the intervals; the application passes origins and may take the rest from settings.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConnectionConfig:
    """The Centrifugo-protocol socket (``/connection/websocket``)."""

    allowed_origins: tuple[str, ...] = ()
    """Origins a browser may connect from: exact (``https://app.example.com``) or with ``*``
    wildcards (``https://*.example.com``), compared case-insensitively; ``"*"`` allows any.
    A request without ``Origin`` (servers, SDKs) is always accepted."""
    allow_same_host: bool = False
    """Also accept a browser whose ``Origin`` names the host the upgrade was sent to (the
    dashboard served by this server, reached at any of its addresses)."""
    ping_interval: float = 25.0
    """Seconds between server pings; the connect reply announces it (rounded up to whole
    seconds, as the protocol counts them)."""
    pong_timeout: float = 10.0
    """Seconds a client has to show life after a ping before the close ``3012``."""
    connect_timeout: float = 10.0
    """Seconds from the upgrade to a successful ``connect`` before the close ``3502``."""
    expired_close_delay: float = 25.0
    """Grace after the token's expiry before the close ``3005``: SDKs refresh exactly when the
    ``ttl`` they were given runs out, so closing on the dot would race them (Centrifugo waits
    25 s too)."""
    max_queue_bytes: int = 1 << 20
    """Outgoing frames a connection may have waiting (characters); over it the reader is too
    slow and is closed ``3008``."""
    max_frame_bytes: int = 65536
    """Largest client frame; a larger one closes ``1009`` (Centrifugo's default limit)."""
    max_pending_commands: int = 128
    """Client commands waiting to be handled; the excess is answered ``111``."""
    max_subscriptions: int = 128
    """Channels one connection may be on; the excess is answered ``106``."""
    batch_frames: int = 64
    batch_bytes: int = 65536
    """How many replies/pushes one outgoing text frame may pack (``\\n``-separated)."""


@dataclass(frozen=True)
class StreamConfig:
    """The plain stream URL (``/stream/{secret}``)."""

    max_connections_per_url: int = 2
    max_client_frame_bytes: int = 1024
    max_queue_bytes: int = 1 << 20
    """Over it the reader is too slow and is closed ``1013``."""
    max_connections_per_address: int = 10
    """Stream sockets one client address may hold at once, all URLs together; the next is
    refused ``429`` at the handshake (soft: everyone behind one NAT shares it). ``0`` =
    unlimited."""
    max_bad_urls_per_address: int = 20
    """Unknown or retired secrets one address may present within ``bad_url_window``; the next
    one starts its cool-down. ``0`` = never cool down."""
    bad_url_window: float = 60.0
    """Seconds of the sliding window that bad URLs are counted in."""
    bad_url_cooldown: float = 60.0
    """Seconds every stream handshake from that address is refused ``429`` (valid URL or not)."""
    max_tracked_addresses: int = 10_000
    """Addresses whose bad URLs are remembered at once; past it the oldest record is dropped."""


@dataclass(frozen=True)
class HubConfig:
    """What the hub keeps per run."""

    history_size: int = 300
    history_ttl: float = 300.0
    """Seconds after the last sandbox-stage signal before the channel history is emptied."""
    replay_size: int = 2000
    replay_ttl: float = 300.0
    """The stream URL's ``after`` buffer: the last ``replay_size`` signals of the last
    ``replay_ttl`` seconds."""
    max_data_bytes: int = 8192
    """A signal whose ``data`` encodes to more JSON bytes than this is not pushed."""
    sweep_interval: float = 30.0
    """How often (at most) a publication also drops the state of runs nobody needs."""
