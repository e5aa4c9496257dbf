"""A connection's bounded queue of outgoing frames, and the close request that ends it.

The hub fans a publication out by putting one already-encoded frame into every subscriber's
outbox; ``put`` never waits, so one slow reader cannot hold up the others or the publisher.
An outbox over its byte budget asks for its connection to be closed (the caller says with
which code) and drops what it held: a reader that far behind reconnects and catches up by
REST. The connection's writer task is the only consumer. Sizes are counted in characters of
the encoded JSON (bytes, for the ASCII that signals mostly are).
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class CloseRequest:
    code: int
    reason: str


class Outbox:
    def __init__(self, *, max_bytes: int, overflow: CloseRequest) -> None:
        self._frames: deque[str] = deque()
        self._size = 0
        self._max_bytes = max_bytes
        self._overflow = overflow
        self._wakeup = asyncio.Event()
        self.close_request: CloseRequest | None = None

    def put(self, frame: str) -> bool:
        """Queue ``frame``; ``False`` when the connection is closing (or just started to,
        because this frame would have gone over the budget)."""
        if self.close_request is not None:
            return False
        size = len(frame)
        if self._size + size > self._max_bytes:
            self.close(self._overflow.code, self._overflow.reason, drop_pending=True)
            return False
        self._frames.append(frame)
        self._size += size
        self._wakeup.set()
        return True

    def close(self, code: int, reason: str, *, drop_pending: bool = False) -> None:
        """Ask the writer to close the socket, after what is queued unless ``drop_pending``.
        The first request wins."""
        if self.close_request is not None:
            return
        self.close_request = CloseRequest(code, reason)
        if drop_pending:
            self._frames.clear()
            self._size = 0
        self._wakeup.set()

    @property
    def pending_bytes(self) -> int:
        return self._size

    async def take(self, *, max_frames: int, max_bytes: int) -> list[str] | CloseRequest:
        """The next frames to write (at least one, at most ``max_frames``/about ``max_bytes``),
        or the close request once nothing is queued before it."""
        while True:
            if self._frames:
                batch = [self._frames.popleft()]
                size = len(batch[0])
                while self._frames and len(batch) < max_frames:
                    following = len(self._frames[0])
                    if size + following > max_bytes:
                        break
                    batch.append(self._frames.popleft())
                    size += following
                self._size -= sum(len(f) for f in batch)
                return batch
            if self.close_request is not None:
                return self.close_request
            self._wakeup.clear()
            await self._wakeup.wait()
