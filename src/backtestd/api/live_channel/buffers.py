"""Per-run memory of what was published: the channel position and the two replay buffers.

* ``ChannelStream`` — the ``sig:<runId>`` channel's ``offset`` (+1 per publication) and
  ``epoch`` (random, 8 characters, made with the stream), plus the sandbox-stage history of
  spec §5.3: the newest 300 sandbox publications, emptied 5 minutes after the last one.
  Emptying keeps offset and epoch (as Centrifugo keeps a stream's meta after its history
  expired), so a client's ``since`` from before stays valid and just gets nothing older.
* ``ReplayBuffer`` — what the plain stream URL replays after ``?after=<signalId>``
  (spec §5.4, §7.23): the last 5 minutes or 2000 signals, whichever is less.

Both are plain data structures with an injected clock: no I/O, no asyncio.
"""

from __future__ import annotations

import secrets
import string
from collections import deque
from dataclasses import dataclass

EPOCH_ALPHABET = string.ascii_letters + string.digits


def new_epoch() -> str:
    return "".join(secrets.choice(EPOCH_ALPHABET) for _ in range(8))


@dataclass(frozen=True)
class Publication:
    offset: int
    data_json: bytes


@dataclass(frozen=True)
class HistoryPage:
    publications: list[Publication]
    epoch: str
    offset: int


class StalePosition(Exception):
    """A ``since`` whose epoch is not the stream's: the history it refers to is gone."""


class ChannelStream:
    """Position and sandbox history of one run's channel."""

    def __init__(self, *, history_size: int, history_ttl: float) -> None:
        self.epoch = new_epoch()
        self.offset = 0
        self._history: deque[Publication] = deque(maxlen=history_size)
        self._history_ttl = history_ttl
        self._last_sandbox_at: float | None = None

    def append(self, data_json: bytes, *, sandbox: bool, now: float) -> int:
        """Record one publication; returns its offset."""
        self.offset += 1
        if sandbox:
            self.expire(now)
            self._history.append(Publication(self.offset, data_json))
            self._last_sandbox_at = now
        return self.offset

    def expire(self, now: float) -> None:
        """Empty the history once ``history_ttl`` passed since the last sandbox publication."""
        if self._last_sandbox_at is not None and now - self._last_sandbox_at >= self._history_ttl:
            self._history.clear()
            self._last_sandbox_at = None

    @property
    def holds_history(self) -> bool:
        return bool(self._history)

    def history(
        self,
        *,
        limit: int,
        since: tuple[int, str] | None,
        reverse: bool,
        now: float,
    ) -> HistoryPage:
        """Centrifugo's history read: oldest first (newest first with ``reverse``), at most
        ``limit`` (0 = position only); with ``since`` only publications after that offset
        (before it with ``reverse``). Raises ``StalePosition`` for another epoch's ``since``."""
        self.expire(now)
        if since is not None and since[1] != self.epoch:
            raise StalePosition(since[1])
        items = list(self._history)
        if since is not None:
            after = since[0]
            items = [p for p in items if (p.offset < after if reverse else p.offset > after)]
        if reverse:
            items.reverse()
        return HistoryPage(publications=items[:limit], epoch=self.epoch, offset=self.offset)


@dataclass(frozen=True)
class _Held:
    signal_id: str | None
    frame: str
    at: float


class ReplayBuffer:
    """The stream URL's recent signals, each with its id and already-encoded frame."""

    def __init__(self, *, size: int, ttl: float) -> None:
        self._items: deque[_Held] = deque(maxlen=size)
        self._ttl = ttl

    def append(self, signal_id: str | None, frame: str, now: float) -> None:
        self.expire(now)
        self._items.append(_Held(signal_id, frame, now))

    def expire(self, now: float) -> None:
        while self._items and now - self._items[0].at >= self._ttl:
            self._items.popleft()

    def __len__(self) -> int:
        return len(self._items)

    def after(self, signal_id: str, now: float) -> list[str] | None:
        """The frames that followed ``signal_id``, or ``None`` when it is no longer held."""
        self.expire(now)
        frames: list[str] = []
        for held in reversed(self._items):
            if held.signal_id == signal_id:
                frames.reverse()
                return frames
            frames.append(held.frame)
        return None
