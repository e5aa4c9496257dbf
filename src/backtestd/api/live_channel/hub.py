"""The in-process fan-out of live signals to this replica's sockets.

The application feeds ``publish`` with every signal of a run (from the run's own process or
from the cross-replica signal bus) and the hub hands it to every local connection on
``sig:<runId>`` (a Centrifugo ``pub`` push) and every stream URL connection of the run (the
signal's JSON as one frame). It also keeps what needs memory: the channel's offset and epoch,
the sandbox-stage history (§5.3) and the stream URL's ``after`` buffer (§5.4). It only holds
what reached *this* process: a replica that is fed a run's signals only while it has
subscribers for it (see ``subscribed_runs``) has history and ``after`` replay only from then.

Threading: the hub is not thread-safe. Every method must run on the event loop thread that
serves the sockets (an asyncio task of the lead's signal bus is fine). From another thread use
``loop.call_soon_threadsafe(hub.publish, run_id, signal, sandbox=…)`` — via
``functools.partial`` for the keyword. ``publish`` never waits: a subscriber's frames go into
its bounded outbox, and one too far behind is closed (``3008`` / ``1013``) rather than slowing
the others.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

import orjson

from backtestd.api.live_channel import protocol
from backtestd.api.live_channel.buffers import ChannelStream, HistoryPage, ReplayBuffer
from backtestd.api.live_channel.config import HubConfig

log = logging.getLogger(__name__)

STREAM_CLOSE_INVALID = (1008, "stream URL no longer valid")
STREAM_CLOSE_RESTART = (1001, "service restarting")


class ChannelSubscriber(Protocol):
    """A Centrifugo-protocol connection as the hub sees it."""

    @property
    def user_id(self) -> str: ...

    def deliver(self, frame: str) -> None:
        """Queue one encoded push; never blocks."""

    def server_unsubscribe(self, run_id: str) -> None:
        """Forget ``sig:<run_id>`` and tell the client (push ``unsubscribe``, code 2000)."""

    def shutdown(self) -> None:
        """Close the connection because the service stops (``3001``)."""


class StreamSubscriber(Protocol):
    """A stream URL connection as the hub sees it."""

    @property
    def secret(self) -> str: ...

    def deliver(self, frame: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


class StreamAttach(Enum):
    ATTACHED = "attached"
    TOO_MANY = "too_many"
    AFTER_NOT_HELD = "after_not_held"


@dataclass
class _Run:
    stream: ChannelStream
    replay: ReplayBuffer
    channel_subs: set[ChannelSubscriber] = field(default_factory=set)
    stream_subs: set[StreamSubscriber] = field(default_factory=set)
    evictions: int = 0

    @property
    def has_subscribers(self) -> bool:
        return bool(self.channel_subs or self.stream_subs)


SubscriptionsListener = Callable[[frozenset[str]], None]


class ChannelHub:
    def __init__(
        self, config: HubConfig | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._config = config or HubConfig()
        self._clock = clock
        self._runs: dict[str, _Run] = {}
        self._connections: set[ChannelSubscriber] = set()
        self._listeners: list[SubscriptionsListener] = []
        self._last_sweep = clock()

    # -- the application's side ---------------------------------------------------------------

    def publish(self, run_id: str, signal: Mapping[str, Any], *, sandbox: bool) -> int | None:
        """Push one ``LiveSignal`` (wire JSON) of ``run_id`` to its local subscribers.

        ``sandbox`` says the signal is of the sandbox stage: only those go into the channel
        history. Returns the channel offset it was published with, or ``None`` when it is not
        pushed at all: a ``type: paper`` item, or ``data`` over 8192 bytes of JSON (the REST
        read serves those). Raises ``TypeError`` for a signal that is not JSON-serialisable.
        """
        if signal.get("type") == "paper":
            return None
        data_json = orjson.dumps(signal.get("data"))
        if len(data_json) > self._config.max_data_bytes:
            return None
        signal_json = orjson.dumps(dict(signal))
        now = self._clock()
        run = self._run(run_id)
        offset = run.stream.append(signal_json, sandbox=sandbox, now=now)
        if run.channel_subs:
            push = protocol.publication_push(protocol.channel_of(run_id), signal_json, offset)
            for subscriber in list(run.channel_subs):
                subscriber.deliver(push)
        frame = signal_json.decode("utf-8")
        signal_id = signal.get("signalId")
        run.replay.append(signal_id if isinstance(signal_id, str) else None, frame, now)
        for stream_subscriber in list(run.stream_subs):
            stream_subscriber.deliver(frame)
        if now - self._last_sweep >= self._config.sweep_interval:
            self.sweep()
        return offset

    def evict_non_owners(self, run_id: str, owner_user_id: str) -> int:
        """Unsubscribe everyone but the owner from ``sig:<run_id>`` (the run turned private):
        each gets an ``unsubscribe`` push with code 2000 and is not resubscribed by its SDK.
        Returns how many subscriptions were ended. Also makes a subscribe whose permission
        check was under way re-check."""
        run = self._runs.get(run_id)
        if run is None:
            return 0
        run.evictions += 1
        evicted = [s for s in run.channel_subs if s.user_id != owner_user_id]
        for subscriber in evicted:
            run.channel_subs.discard(subscriber)
            subscriber.server_unsubscribe(run_id)
        if evicted and not run.has_subscribers:
            self._notify()
        return len(evicted)

    def close_stream(self, run_id: str) -> int:
        """Close every stream URL connection of ``run_id`` with ``1008`` (URL rotated or
        revoked, run stopped, plan lost broadcast). Returns how many were closed."""
        run = self._runs.get(run_id)
        if run is None or not run.stream_subs:
            return 0
        closing = list(run.stream_subs)
        run.stream_subs.clear()
        for subscriber in closing:
            subscriber.close(*STREAM_CLOSE_INVALID)
        if not run.has_subscribers:
            self._notify()
        return len(closing)

    def subscribed_runs(self) -> set[str]:
        """Runs with at least one local subscriber (channel or stream URL): the ones this
        replica needs signals for."""
        return {run_id for run_id, run in self._runs.items() if run.has_subscribers}

    def add_subscriptions_listener(self, listener: SubscriptionsListener) -> Callable[[], None]:
        """Call ``listener(subscribed_runs)`` whenever a run gains its first local subscriber
        or loses its last one. It runs synchronously on the event loop: it must not block
        (set an event, put into a queue). Returns a function that removes it."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def shutdown(self) -> None:
        """Close every socket: ``3001`` (clients reconnect) and stream ``1001``."""
        for connection in list(self._connections):
            connection.shutdown()
        for run in self._runs.values():
            for subscriber in list(run.stream_subs):
                subscriber.close(*STREAM_CLOSE_RESTART)
            run.stream_subs.clear()

    def sweep(self) -> None:
        """Drop the state of runs with no subscriber and nothing left in their buffers."""
        now = self._clock()
        self._last_sweep = now
        for run_id in list(self._runs):
            run = self._runs[run_id]
            run.stream.expire(now)
            run.replay.expire(now)
            if not run.has_subscribers and not run.stream.holds_history and not len(run.replay):
                del self._runs[run_id]

    # -- the sockets' side --------------------------------------------------------------------

    def register(self, connection: ChannelSubscriber) -> None:
        self._connections.add(connection)

    def unregister(self, connection: ChannelSubscriber, run_ids: set[str]) -> None:
        self._connections.discard(connection)
        for run_id in run_ids:
            self.detach_channel(run_id, connection)

    def eviction_mark(self, run_id: str) -> int:
        run = self._runs.get(run_id)
        return run.evictions if run is not None else 0

    def attach_channel(self, run_id: str, subscriber: ChannelSubscriber) -> None:
        run = self._run(run_id)
        first = not run.has_subscribers
        run.channel_subs.add(subscriber)
        if first:
            self._notify()

    def detach_channel(self, run_id: str, subscriber: ChannelSubscriber) -> None:
        run = self._runs.get(run_id)
        if run is None or subscriber not in run.channel_subs:
            return
        run.channel_subs.discard(subscriber)
        if not run.has_subscribers:
            self._notify()

    def history(
        self, run_id: str, *, limit: int, since: tuple[int, str] | None, reverse: bool
    ) -> HistoryPage:
        """Raises ``buffers.StalePosition`` for a ``since`` of another epoch."""
        return self._run(run_id).stream.history(
            limit=limit, since=since, reverse=reverse, now=self._clock()
        )

    def attach_stream(
        self,
        run_id: str,
        subscriber: StreamSubscriber,
        *,
        after: str | None,
        max_per_url: int,
    ) -> StreamAttach:
        """Register a stream URL connection; with ``after``, first queue what followed that
        signal (all in one step on the loop, so nothing is missed or sent twice)."""
        run = self._run(run_id)
        same_url = sum(1 for s in run.stream_subs if s.secret == subscriber.secret)
        if same_url >= max_per_url:
            return StreamAttach.TOO_MANY
        if after is not None:
            frames = run.replay.after(after, self._clock())
            if frames is None:
                return StreamAttach.AFTER_NOT_HELD
            for frame in frames:
                subscriber.deliver(frame)
        first = not run.has_subscribers
        run.stream_subs.add(subscriber)
        if first:
            self._notify()
        return StreamAttach.ATTACHED

    def detach_stream(self, run_id: str, subscriber: StreamSubscriber) -> None:
        run = self._runs.get(run_id)
        if run is None or subscriber not in run.stream_subs:
            return
        run.stream_subs.discard(subscriber)
        if not run.has_subscribers:
            self._notify()

    # -- internals ----------------------------------------------------------------------------

    def _run(self, run_id: str) -> _Run:
        run = self._runs.get(run_id)
        if run is None:
            config = self._config
            run = _Run(
                stream=ChannelStream(
                    history_size=config.history_size, history_ttl=config.history_ttl
                ),
                replay=ReplayBuffer(size=config.replay_size, ttl=config.replay_ttl),
            )
            self._runs[run_id] = run
        return run

    def _notify(self) -> None:
        runs = frozenset(self.subscribed_runs())
        for listener in list(self._listeners):
            try:
                listener(runs)
            except Exception:
                log.exception("a live subscriptions listener failed")
