"""Live runs: a compiled strategy forward-tested on a live feed (``spec/live-execution.md``).

The vocabulary shared by the service (start, read, stop), the executor on the workers (lease,
feed loop, sandbox twin) and the storage: a run's record, its source, its signals. Wire names
are built in ``api/schemas/live.py`` only; this module speaks Python.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from backtestd.domain.marketdata import DataType

RUN_ID_LENGTH = 22
SIGNAL_SEQ_DIGITS = 6


class LiveStage(enum.StrEnum):
    SANDBOX = "SANDBOX"
    LIVE = "LIVE"

    @property
    def signal_stage(self) -> str:
        """Signals spell the stage in lower case (``sandbox``/``live``)."""
        return self.value.lower()


class LiveDesired(enum.StrEnum):
    RUNNING = "RUNNING"
    STOPPED = "STOPPED"


class LiveState(enum.StrEnum):
    """Health of a run. A free string on the wire (clients tolerate new values)."""

    STARTING = "STARTING"
    RUNNING = "RUNNING"
    LAGGING = "LAGGING"
    HUNG = "HUNG"
    DEGRADED = "DEGRADED"
    FAILED = "FAILED"
    STOPPED = "STOPPED"


class Visibility(enum.StrEnum):
    PRIVATE = "private"
    PUBLIC = "public"


class SignalType(enum.StrEnum):
    HINT = "hint"
    INFO = "info"
    MARKER = "marker"
    COMMAND = "command"
    PAPER = "paper"


class Reasons:
    """The fixed sentences of ``reason`` (spec §4.5): never a stack trace."""

    DEFINITION_REFUSED = "The run could not start: its definition was refused."
    CANNOT_CONSUME = (
        "The run could not start: its strategy cannot consume the source type it was started with."
    )
    NO_START = "The run could not start after several attempts."
    STRATEGY_FAILED = "The run stopped because its strategy failed while processing data."
    FEED_LOST = "The run stopped because it lost its data feed."
    FAILED = "The run failed."


@dataclass(frozen=True)
class LiveSource:
    """The one market source a run follows; ``instruments`` as sent, resolved, or ``("*",)``."""

    venue_type: str
    exchange: str
    segment: str
    type: DataType
    instruments: tuple[str, ...]


@dataclass(frozen=True)
class GateChecks:
    agreement: bool = True
    resources: bool = True
    stability: bool = True
    fed: bool = True


@dataclass(frozen=True)
class LiveGate:
    """The sandbox's verdict (§4.2, §7.3): ``passed`` decides promotion; a run started in
    ``LIVE`` inherits it from ``inherited_from``."""

    passed: bool
    checks: GateChecks | None = None
    evaluated_at_ms: int | None = None
    inherited_from: str | None = None


@dataclass(frozen=True)
class LiveStats:
    processed: int
    ops_per_second: float
    instruments_seen: int
    as_of_ms: int
    progressed_at_ms: int | None = None
    position_ms: int | None = None
    """Market time of the last update processed: where a takeover resumes."""


@dataclass(frozen=True)
class LiveRunRecord:
    """What is stored about one live run; it stays readable forever."""

    run_id: str
    user_id: str
    strategy_id: str
    compilation: str
    """The strategy's compilation (id and generation): what promotion is inherited by."""
    visibility: Visibility
    stage: LiveStage
    state: LiveState
    desired: LiveDesired
    source: LiveSource
    params: Mapping[str, Any]
    params_version: int
    relay: bool
    stream: bool
    warm_from: int
    created_at_ms: int
    started_at_ms: int
    updated_at_ms: int
    sandbox_minutes: int | None = None
    name: str | None = None
    description: str | None = None
    reason: str | None = None
    gate: LiveGate | None = None
    stats: LiveStats | None = None
    stream_secret: str | None = None
    stream_revoked: bool = False
    stopped_for_resources: bool = False
    paper: PaperConfig | None = None

    @property
    def active(self) -> bool:
        """Blocks a new start of the same strategy and counts toward the plan's run limit."""
        return self.desired is LiveDesired.RUNNING

    @property
    def running(self) -> bool:
        """Wanted running and not ended (§7.21): what the public catalogue lists."""
        return self.active and self.state not in (LiveState.FAILED, LiveState.STOPPED)

    @property
    def publicly_readable(self) -> bool:
        return (
            self.visibility is Visibility.PUBLIC and self.stage is LiveStage.LIVE and self.running
        )

    def readable_by(self, user_id: str | None) -> bool:
        return user_id == self.user_id or self.publicly_readable


@dataclass(frozen=True)
class ParamsChange:
    """An accepted runtime parameter update, applied at ``effective_at_ms`` market time."""

    run_id: str
    version: int
    params: Mapping[str, Any]
    effective_at_ms: int


@dataclass(frozen=True)
class LiveCommand:
    """A transient command waiting for delivery; removed once delivered."""

    run_id: str
    command_id: str
    command: str
    properties: Mapping[str, Any]
    effective_at_ms: int


@dataclass(frozen=True)
class LiveSignal:
    """One recorded signal: exactly the object every delivery path sends (``body``)."""

    run_id: str
    seq: int
    event_ts_ms: int
    type: SignalType
    symbol: str | None
    stage: str
    body: Mapping[str, Any] = field(repr=False)


def signal_id(run_id: str, seq: int) -> str:
    """``<runId>-<seq>`` zero-padded (§7.5): stable across restarts and delivery paths."""
    return f"{run_id}-{seq:0{SIGNAL_SEQ_DIGITS}d}"


def signal_digest(content: Mapping[str, Any]) -> str:
    """Lower-case hex SHA-256 of canonical JSON of the signal's content (§7.3, §7.5).

    ``content`` holds type, kind, event time, instrument, order, data and parameter version; two
    executions that agree produce equal digests, which is what the sandbox compares.
    """
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class FeeLeg(enum.StrEnum):
    RECEIVED = "RECEIVED"
    QUOTE = "QUOTE"
    BASE = "BASE"


@dataclass(frozen=True)
class PaperConfig:
    """A run's paper-trading block, normalised (§4.1, §6.1): ``feeRate`` resolved into the two
    side rates; ``accounts`` kept only when the request gave it (the echo rule)."""

    initial_funding: float = 100.0
    buy_fee_rate: float = 0.001
    sell_fee_rate: float = 0.001
    fee_leg: FeeLeg = FeeLeg.RECEIVED
    output: str = "separate"
    percent_amount_to_lock: float | None = None
    accounts: str | None = None


@dataclass(frozen=True)
class LiveStart:
    """A validated ``POST /strategy/{id}/live`` body, in Python names."""

    source: LiveSource
    source_given_instruments: bool
    params: Mapping[str, Any]
    visibility: Visibility
    relay: bool
    sandbox: bool
    stream: bool
    warm_from: int | None
    sandbox_minutes: int | None
    name: str | None
    description: str | None
    paper: PaperConfig | None


@dataclass(frozen=True)
class SignalQuery:
    """A read of a run's signal record (``GET /live/{runId}/signals``)."""

    since_ms: int | None
    instruments: tuple[str, ...] | None
    """Exact symbols or one-sided wildcards (``*/USDT``, ``BTC/*``); None = every one."""
    types: tuple[SignalType, ...] | None
    after_seq: int | None
    limit: int
