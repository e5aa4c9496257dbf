"""Wire framing shared with the JVM engine host (``com.wualabs.backtestd.host.Frames``).

A frame is a 4-byte big-endian length followed by that many bytes. A message is one header
frame holding a UTF-8 JSON object, followed by ``header["payloads"]`` binary frames. Bulk arrays
(signal columns) travel as raw little-endian payloads so they never pass through JSON.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import IO, Any

PROTOCOL_VERSION = 1
"""The protocol this client speaks; a host announcing another version is refused."""

MAX_FRAME = 1 << 30
"""Largest frame either side accepts; a larger length means the stream is out of sync."""

_LENGTH = struct.Struct(">I")

Header = dict[str, Any]
"""A message's header: the host protocol's JSON object (names and values as the Java side
reads and writes them; ``docs/engine-host.md`` lists them)."""


class ProtocolError(Exception):
    """The byte stream from the host does not follow the framing (or ended mid-message)."""


@dataclass(frozen=True)
class Message:
    """A decoded message: the JSON header and its binary payloads, in order."""

    header: Header
    payloads: tuple[bytes, ...] = field(default_factory=tuple)


def encode(header: Header, payloads: tuple[bytes, ...] = ()) -> bytes:
    """Encode one message (the header gets its ``payloads`` count when there are any)."""
    if payloads:
        header = {**header, "payloads": len(payloads)}
    head = json.dumps(header, separators=(",", ":"), allow_nan=True).encode("utf-8")
    parts = [_LENGTH.pack(len(head)), head]
    for payload in payloads:
        parts.append(_LENGTH.pack(len(payload)))
        parts.append(payload)
    return b"".join(parts)


def read_message(stream: IO[bytes]) -> Message | None:
    """Read one message; ``None`` on a clean end of stream before its first byte."""
    head = _read_frame(stream, eof_ok=True)
    if head is None:
        return None
    try:
        header = json.loads(head.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"message header is not JSON: {exc}") from exc
    if not isinstance(header, dict):
        raise ProtocolError("message header is not a JSON object")
    count = header.get("payloads", 0)
    if not isinstance(count, int) or count < 0:
        raise ProtocolError(f"bad payload count {count!r}")
    payloads = []
    for _ in range(count):
        frame = _read_frame(stream, eof_ok=False)
        assert frame is not None  # eof_ok=False raises instead
        payloads.append(frame)
    return Message(header, tuple(payloads))


def _read_frame(stream: IO[bytes], *, eof_ok: bool) -> bytes | None:
    raw = _read_exact(stream, 4, eof_ok=eof_ok)
    if raw is None:
        return None
    (length,) = _LENGTH.unpack(raw)
    if length > MAX_FRAME:
        raise ProtocolError(f"frame length {length} out of range")
    data = _read_exact(stream, length, eof_ok=False)
    assert data is not None
    return data


def _read_exact(stream: IO[bytes], size: int, *, eof_ok: bool) -> bytes | None:
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            if eof_ok and remaining == size:
                return None
            raise ProtocolError("end of stream inside a message")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
