"""Live sessions: a compiled strategy fed one market update (or a few) at a time, state kept.

A :class:`LiveHost` owns one dedicated engine host JVM (its own process, started with a small
heap), so one live run's execution can be stopped or lost without touching any other run. In it,
it opens *sessions* (the host's ``live_*`` requests, docs/engine-host.md "Live sessions"): one
strategy instance per instrument of a run, each started exactly as a backtest run starts it and
fed the rows a run over the same data would read. Fed the rows of a range one at a time, a
session emits exactly the signals a backtest run over that range emits.

Every call runs the strategy under the call's CPU and wall-clock limits and fails as a run fails
(:class:`~backtestd.strategy.jvm.results.RunFailure` of the same kinds). What a failure leaves:

- a failure of the strategy in the call (``user_exception``, ``output_limit``) ends that session
  only; a ``property_error`` from :meth:`LiveHost.set_params` ends nothing;
- a failure that ends the JVM (``limit_exceeded``, ``out_of_memory``, ``stack_overflow``, the
  tripwire, a crash), or an answer after which the JVM restarts (a swallowed stack overflow),
  loses every session of this host.

A call on a session that is no longer open raises :class:`LiveSessionLost`: the caller restarts
the run (the next :meth:`LiveHost.open` starts a fresh JVM when the old one is gone).
"""

from __future__ import annotations

import base64
import collections
import logging
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any

from backtestd.domain.backtests import ParamValue
from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm.host import EngineHost, Handshake, HostConfig
from backtestd.strategy.jvm.live_types import (
    LiveFeedResult,
    LiveSessionInfo,
    LiveSignal,
    MarketUpdate,
    as_updates,
    command_properties,
    rows_of,
    signals_of,
)
from backtestd.strategy.jvm.protocol import Header, Message
from backtestd.strategy.jvm.results import RunFailure, RunResult
from backtestd.strategy.jvm.run_request import param_text

log = logging.getLogger(__name__)

DEFAULT_HEAP_MB = 128
"""Heap of a live host's JVM: a few strategy instances and their indicator state."""

MAX_FEED_ROWS = 10_000
"""Most updates one feed call carries (the host's ``LiveService.MAX_ROWS``)."""

_NEVER = 1 << 40
"""A request count and a memory ceiling (MiB) a live host never reaches: recycling the JVM
would lose its sessions, so it is never recycled behind the caller's back."""


class LiveSessionLost(Exception):
    """The session is not open any more: closed, ended by its strategy's failure, or lost with
    its JVM. Nothing of it survives; the caller restarts the run."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"live session {session_id} is lost: {reason}")
        self.session_id = session_id
        self.reason = reason


_ENDED_KEPT = 1024
"""Ended sessions whose reason a live host remembers (for the error of a later call)."""

_Key = tuple[int, str]
"""A session's key: its JVM generation and the id that JVM gave it (ids restart per JVM)."""


@dataclass(frozen=True)
class _Session:
    info: LiveSessionInfo
    cpu_limit_s: float
    wall_limit_s: float

    @property
    def key(self) -> _Key:
        return (self.info.generation, self.info.session_id)


def live_host_config(config: HostConfig | None = None, heap_mb: int | None = None) -> HostConfig:
    """``config`` (default: a fresh one with a :data:`DEFAULT_HEAP_MB` heap) made fit for live
    sessions: never recycled, no caches built for backtests (series and column copies) nor a
    heap committed for them, no warm-up. ``heap_mb`` overrides the heap."""
    base = config or HostConfig(heap_mb=DEFAULT_HEAP_MB)
    return replace(
        base,
        heap_mb=heap_mb if heap_mb is not None else base.heap_mb,
        max_requests=_NEVER,
        memory_ceiling_mb=_NEVER,
        warm_up=False,
        series_cache_mb=0,
        column_cache_mb=0,
        committed_heap_mb=0,
    )


class LiveHost:
    """One dedicated engine host JVM and the live sessions it holds. Thread-safe: calls are
    served one at a time (the JVM runs one strategy call at a time)."""

    def __init__(self, config: HostConfig | None = None, *, heap_mb: int | None = None) -> None:
        self.config = live_host_config(config, heap_mb)
        self._host = EngineHost(self.config)
        self._lock = threading.RLock()
        self._sessions: dict[_Key, _Session] = {}
        self._ended: collections.OrderedDict[_Key, str] = collections.OrderedDict()
        self.lost_reason: str | None = None
        """Why the last JVM ended under its sessions, or None while it lives (or never did)."""

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> Handshake:
        """Start the JVM now (otherwise the first :meth:`open` does)."""
        return self._host.start()

    @property
    def pid(self) -> int | None:
        """The JVM's process id while it runs."""
        return self._host.pid

    @property
    def sessions(self) -> tuple[LiveSessionInfo, ...]:
        """The sessions open now."""
        with self._lock:
            self._notice_lost_jvm()
            return tuple(s.info for s in self._sessions.values())

    def close_all(self) -> None:
        """Close every session and stop the JVM. A later :meth:`open` starts a fresh one."""
        with self._lock:
            self._end_all("the live host was closed")
            self._host.recycle()

    def kill(self) -> None:
        """Kill the JVM now, even in the middle of a call (which then fails with
        ``host_crashed``): every session is lost. For a run that must stop at once (a strategy
        stuck in a call before its wall-clock limit ends it). A later :meth:`open` starts a
        fresh JVM."""
        self.lost_reason = "the live host was killed"
        self._host.kill()

    def __enter__(self) -> LiveHost:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close_all()

    # -- sessions ------------------------------------------------------------------------------

    def open(
        self,
        class_files: Mapping[str, bytes],
        main_class: str,
        kind: DataType | str,
        instrument: Instrument,
        params: Mapping[str, ParamValue] | None = None,
        *,
        cpu_limit_s: float,
        wall_limit_s: float | None = None,
    ) -> LiveSessionInfo:
        """Start ``main_class`` for ``instrument``'s ``kind`` updates, as a run starts it (the
        same class verification, sandbox loader and property injection). ``cpu_limit_s`` (and
        ``wall_limit_s``, default twice that plus 5 s) bound every later call of the session,
        this one included. Raises ``RunFailure`` as a run does (``property_error``, a
        constructor's ``user_exception``, ``sandbox_violation``...); ``bad_request`` with
        ``details["refused"] == "source"`` when the strategy cannot consume ``kind`` data."""
        feed = DataType(kind)
        wall = wall_limit_s or 2 * cpu_limit_s + 5
        place: Header = {"base": instrument.base, "quote": instrument.quote}
        if instrument.settle:
            place["settle"] = instrument.settle
        header: Header = {
            "op": "live_open",
            "class_files": {
                name: base64.b64encode(data).decode("ascii") for name, data in class_files.items()
            },
            "main_class": main_class,
            "kind": feed.value,
            "instrument": place,
            "params": {k: param_text(v) for k, v in (params or {}).items()},
            **self._limits(cpu_limit_s, wall),
        }
        with self._lock:
            self._notice_lost_jvm()
            answer = self._call(header, wall, None)
            info = LiveSessionInfo(
                session_id=str(answer.header["session"]),
                handles_commands=bool(answer.header.get("handles_commands")),
                kind=feed,
                instrument=instrument,
                main_class=main_class,
                generation=self._host.starts,
                notices=tuple(str(n) for n in answer.header.get("notices", ())),
                execution_mode=str(answer.header.get("execution_mode", "")),
                percent_gain=float(answer.header.get("percent_gain", math.nan)),
                multi_entry=bool(answer.header.get("multi_entry", False)),
            )
            state = _Session(info, cpu_limit_s, wall)
            self._sessions[state.key] = state
            self._after_answer(answer)
            return info

    def feed(
        self, session: LiveSessionInfo, updates: MarketUpdate | Sequence[MarketUpdate]
    ) -> LiveFeedResult:
        """Feed the next update(s), in order, as a run feeds its rows; returns the signals
        exactly these updates produced and how many were processed."""
        rows = rows_of(session.kind, as_updates(updates))
        if len(rows) > MAX_FEED_ROWS:
            raise ValueError(f"one feed carries at most {MAX_FEED_ROWS} updates, got {len(rows)}")
        with self._lock:
            state = self._open_session(session)
            header: Header = {"op": "live_feed", "session": session.session_id, "rows": rows}
            answer = self._call(
                {**header, **self._limits(state.cpu_limit_s, state.wall_limit_s)},
                state.wall_limit_s,
                state,
            )
            result = _feed_result(answer)
            self._after_answer(answer)
            return result

    def set_params(
        self, session: LiveSessionInfo, params: Mapping[str, ParamValue]
    ) -> tuple[str, ...]:
        """Write new property values into the running strategy, converted as at the start of a
        run; they hold from the next update on. Returns the notices the change produced. A
        ``property_error`` (an undeclared name, an unparsable value: nothing was changed; or a
        setter that threw) leaves the session open."""
        with self._lock:
            state = self._open_session(session)
            header: Header = {
                "op": "live_params",
                "session": session.session_id,
                "params": {k: param_text(v) for k, v in params.items()},
                **self._limits(state.cpu_limit_s, state.wall_limit_s),
            }
            answer = self._call(header, state.wall_limit_s, state)
            self._after_answer(answer)
            return tuple(str(n) for n in answer.header.get("notices", ()))

    def command(
        self,
        session: LiveSessionInfo,
        text: str,
        properties: Mapping[str, Any] | None = None,
    ) -> list[LiveSignal]:
        """Deliver one command to a strategy implementing ``CommandRequestHandler``, between
        two updates; returns the signals it emitted, stamped with the session's market time.
        ``properties`` become the request's top-level entries, as strings
        (:func:`~backtestd.strategy.jvm.live_types.command_properties`). A strategy that takes
        no commands (``handles_commands`` false) is refused with ``bad_request``
        (``details["refused"] == "commands"``) and its session stays open."""
        return list(self.command_result(session, text, properties).signals)

    def command_result(
        self,
        session: LiveSessionInfo,
        text: str,
        properties: Mapping[str, Any] | None = None,
    ) -> LiveFeedResult:
        """:meth:`command` with the whole answer (notices, market time, CPU)."""
        with self._lock:
            state = self._open_session(session)
            header: Header = {
                "op": "live_command",
                "session": session.session_id,
                "command": text,
                "properties": command_properties(properties),
                **self._limits(state.cpu_limit_s, state.wall_limit_s),
            }
            answer = self._call(header, state.wall_limit_s, state)
            result = _feed_result(answer)
            self._after_answer(answer)
            return result

    def close(self, session: LiveSessionInfo) -> None:
        """End the session (no strategy code runs). Closing a lost or closed one does nothing."""
        with self._lock:
            self._notice_lost_jvm()
            state = self._sessions.get((session.generation, session.session_id))
            if state is None:
                return
            self._end(state, "it was closed")
            if self._same_jvm(session):
                answer = self._call({"op": "live_close", "session": session.session_id}, 10.0, None)
                self._after_answer(answer)

    # -- internals -----------------------------------------------------------------------------

    def _limits(self, cpu_s: float, wall_s: float) -> Header:
        return {
            "cpu_limit_ms": int(cpu_s * 1000),
            "wall_limit_ms": int(wall_s * 1000),
            "stack_kb": self.config.stack_kb,
        }

    def _same_jvm(self, session: LiveSessionInfo) -> bool:
        return self._host.alive and self._host.starts == session.generation

    def _open_session(self, session: LiveSessionInfo) -> _Session:
        """The session's state, or ``LiveSessionLost`` when it is no longer open."""
        self._notice_lost_jvm()
        key = (session.generation, session.session_id)
        state = self._sessions.get(key)
        if state is None:
            reason = self._ended.get(key, "it was never opened on this live host")
            raise LiveSessionLost(session.session_id, reason)
        return state

    def _notice_lost_jvm(self) -> None:
        """Marks every session lost once their JVM is gone (ended after a fatal failure, a
        restart, a crash, or stopped)."""
        if self._sessions and not self._host.alive:
            self._lose_all(self.lost_reason or "its engine host JVM is gone")

    def _call(self, header: Header, wall_s: float, state: _Session | None) -> Message:
        """One request; a failure marks what it ended (the session, or every session with the
        JVM) before it is raised."""
        self._host.start()  # a JVM gone since the last call is replaced here, not mid-request
        starts = self._host.starts
        try:
            return self._host.request(header, wall_s + self.config.answer_margin_s, "strategy run")
        except RunFailure as failure:
            if not self._host.alive or self._host.starts != starts:
                self._lose_all(
                    f"the engine host ended after a {failure.kind.value}: {failure.message}"
                )
            elif state is not None and failure.details.get("session_ended", False):
                self._end(state, f"it ended with a {failure.kind.value}: {failure.message}")
            raise

    def _after_answer(self, answer: Message) -> None:
        """A successful answer after which the JVM restarts (it may be damaged) loses every
        session; the answer itself still holds."""
        restart = answer.header.get("restart")
        if restart or not self._host.alive:
            self._lose_all(f"the engine host restarted: {restart or 'it exited'}")

    def _lose_all(self, reason: str) -> None:
        self.lost_reason = reason
        if self._sessions:
            log.warning("live host lost %d sessions: %.300s", len(self._sessions), reason)
        self._end_all(reason)

    def _end_all(self, reason: str) -> None:
        for state in list(self._sessions.values()):
            self._end(state, reason)

    def _end(self, state: _Session, reason: str) -> None:
        self._sessions.pop(state.key, None)
        self._ended[state.key] = reason
        while len(self._ended) > _ENDED_KEPT:
            self._ended.popitem(last=False)


def _feed_result(answer: Message) -> LiveFeedResult:
    result = RunResult.from_answer(answer.header, answer.payloads)
    market = answer.header.get("market_ts")
    return LiveFeedResult(
        signals=signals_of(result),
        processed=result.events,
        market_ts_ms=int(market) if isinstance(market, int) else None,
        notices=result.notices,
        cpu_ns=result.cpu_ns,
        elapsed_ns=result.elapsed_ns,
    )
