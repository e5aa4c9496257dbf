"""Reads of a run's signal record (§3.10): cursors, filters, the moving window, ``410``.

A cursor is base64url JSON of the last sequence number served; the record keeps a moving
window (docs/live.md, "Signals"), so a cursor whose next signal was discarded is ``410`` with
``availableSinceMs=<ms>`` in the message, which the SDK reads with a regex.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass

from backtestd.domain.live import LiveSignal, SignalQuery, SignalType
from backtestd.errors import Gone, InvalidInput
from backtestd.services.live.runs import LiveRunService
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import LiveSignalRepository

MAX_LIMIT = 100
_SIDE = r"[A-Za-z0-9-]+"
_INSTRUMENT = re.compile(rf"^(\*|{_SIDE})/(\*|{_SIDE})$")


class CursorExpired(Gone):
    """The cursor's position left the moving window (``410``)."""

    default_reason = "CURSOR_EXPIRED"


@dataclass(frozen=True)
class SignalPage:
    signals: list[LiveSignal]
    available_since_ms: int | None
    next_cursor: str | None


def encode_cursor(seq: int) -> str:
    text = json.dumps({"seq": seq}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(text).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()))
        seq = value["seq"]
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise ValueError
        return seq
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InvalidInput(
            f"cursor {cursor!r} is not one this service issued; use the cursor of _links.next "
            "from the previous page, or sinceMs",
            reason="INVALID_CURSOR",
        ) from None


def parse_instruments(text: str | None) -> tuple[str, ...] | None:
    """``*`` or nothing = all; else a comma list of ``BASE/QUOTE`` with ``*`` on one side."""
    if text is None or text.strip() == "*":
        return None
    items = tuple(part.strip() for part in text.split(","))
    for item in items:
        match = _INSTRUMENT.match(item)
        if match is None or (match.group(1) == "*" and match.group(2) == "*"):
            raise InvalidInput(
                f"instrument {item!r} is not BASE/QUOTE, */QUOTE or BASE/* (comma-separated for "
                "several; * alone for all)",
                reason="INVALID_INSTRUMENT",
            )
    return items


def parse_types(text: str | None) -> tuple[SignalType, ...] | None:
    if text is None or not text.strip():
        return None
    out = []
    for part in text.split(","):
        try:
            out.append(SignalType(part.strip()))
        except ValueError:
            names = ", ".join(t.value for t in SignalType)
            raise InvalidInput(
                f"type {part.strip()!r} is not a signal type; use a comma list of {names}",
                reason="INVALID_TYPE",
            ) from None
    return tuple(out)


def signal_query(
    since_ms: int | None,
    instrument: str | None,
    type_: str | None,
    cursor: str | None,
    limit: int | None,
) -> SignalQuery:
    if limit is not None and limit < 1:
        raise InvalidInput(f"limit {limit} must be at least 1", reason="INVALID_LIMIT")
    if since_ms is not None and since_ms < 0:
        raise InvalidInput(f"sinceMs {since_ms} must not be negative", reason="INVALID_SINCE")
    return SignalQuery(
        since_ms=since_ms,
        instruments=parse_instruments(instrument),
        types=parse_types(type_),
        after_seq=decode_cursor(cursor) if cursor is not None else None,
        limit=min(limit or 20, MAX_LIMIT),
    )


class LiveSignalReads:
    def __init__(self, database: Database, runs: LiveRunService) -> None:
        self._database = database
        self._runs = runs

    def page(self, user_id: str | None, run_id: str, query: SignalQuery) -> SignalPage:
        record = self._runs.readable(user_id, run_id)
        # A promoted public run's sandbox-stage signals are its owner's (§7.12).
        stages = None if user_id == record.user_id else ["live"]
        with self._database.unit_of_work() as uow:
            signals = LiveSignalRepository(uow.session)
            oldest = signals.oldest(run_id)
            if (
                query.after_seq is not None
                and oldest is not None
                and query.after_seq < oldest[0] - 1
            ):
                raise CursorExpired(
                    f"cursor no longer held; the record now starts at availableSinceMs={oldest[1]}",
                    retryable=False,
                )
            found = signals.page(
                run_id,
                after_seq=query.after_seq,
                since_ms=query.since_ms,
                types=[t.value for t in query.types] if query.types else None,
                stages=stages,
                symbols=query.instruments,
                limit=query.limit + 1,
            )
        more = len(found) > query.limit
        found = found[: query.limit]
        return SignalPage(
            signals=found,
            available_since_ms=oldest[1] if oldest is not None else None,
            next_cursor=encode_cursor(found[-1].seq) if more and found else None,
        )
