"""What one engine signal becomes in a run's record: its content, digest and stored body.

The stored body uses Python names; ``api/live_wire.py`` renders it on every delivery path
(REST, the channel, the stream URL), so all three send the same object. The digest covers the
content both executions of a sandbox must agree on (§7.3): type, kind, event time, instrument,
order, data and parameter version, never the emission time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from backtestd.domain.live import LiveSignal, SignalType, signal_digest, signal_id


@dataclass(frozen=True)
class SignalContent:
    """One signal as an execution produced it, before it has a place in the record."""

    type: SignalType
    event_ts_ms: int
    instrument: Mapping[str, str] | None
    kind: str | None = None
    order: Mapping[str, str | None] | None = None
    data: Mapping[str, Any] | None = None
    params_version: int = 0

    @property
    def digest(self) -> str:
        return signal_digest(
            {
                "type": self.type.value,
                "kind": self.kind,
                "event_ts_ms": self.event_ts_ms,
                "instrument": dict(self.instrument) if self.instrument is not None else None,
                "order": dict(self.order) if self.order is not None else None,
                "data": dict(self.data) if self.data is not None else None,
                "params_version": self.params_version,
            }
        )

    @property
    def symbol(self) -> str | None:
        return self.instrument.get("symbol") if self.instrument is not None else None


def recorded(
    run_id: str,
    seq: int,
    stage: str,
    content: SignalContent,
    emitted_at_ms: int,
    regenerated: bool = False,
) -> LiveSignal:
    body: dict[str, object] = {
        "v": 1,
        "signal_id": signal_id(run_id, seq),
        "run_id": run_id,
        "stage": stage,
        "type": content.type.value,
        "event_ts_ms": content.event_ts_ms,
        "emitted_at_ms": max(emitted_at_ms, content.event_ts_ms),
        "instrument": dict(content.instrument) if content.instrument is not None else None,
        "digest": content.digest,
        "params_version": content.params_version,
    }
    if content.kind is not None:
        body["kind"] = content.kind
    if content.order is not None:
        body["order"] = dict(content.order)
    if content.data is not None:
        body["data"] = dict(content.data)
    if regenerated:
        body["regenerated"] = True
    return LiveSignal(
        run_id=run_id,
        seq=seq,
        event_ts_ms=content.event_ts_ms,
        type=content.type,
        symbol=content.symbol,
        stage=stage,
        body=body,
    )


def decimal_text(value: float | None) -> str | None:
    """Order amounts and prices travel as decimal strings (§4.4), shortest round-trip form."""
    if value is None:
        return None
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text
