"""One executor's hold on one live run: warm-up, the feed loop, the sandbox twin, the record.

The run's strategy is fed one market update at a time in every session of its engine (one
session per instrument, one JVM per execution). In the sandbox stage a twin engine, a second
JVM, is fed exactly the same updates and must produce the same signals (by digest, §7.3):
agreement until the trial ends promotes the run to ``LIVE``; a disagreement makes it
``DEGRADED`` for good and it is never promoted. Parameter changes and commands are applied
before the first update at or after their ``effectiveAtMs``, in both engines, so both see them
at the same market position.

Restarts: signals are numbered by a sequence kept in the record, and an execution that takes
over a run (its previous executor died) replays the run's warm-up window before the last
processed position without recording, then records only signals after the last recorded one,
so nothing is published twice; a ``marker`` signal ``restart`` makes the takeover visible.

Paper trading (a run started with ``paper``): the primary execution, never the twin, executes
the run's hints on paper (``jobs/live/paper.py``) and stores the book and its curve in the unit
of work that records the update's signals, so the record and the book always agree; a
takeover carries the book on and turns the positions left open into gaps.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from backtestd.domain.backtests import ParamValue
from backtestd.domain.live import (
    GateChecks,
    LiveDesired,
    LiveGate,
    LiveRunRecord,
    LiveSignal,
    LiveStage,
    LiveState,
    LiveStats,
    Reasons,
    SignalType,
)
from backtestd.domain.marketdata import Instrument
from backtestd.engine.paper import StrategyExecution
from backtestd.jobs.live.paper import LivePaper, PaperStep
from backtestd.jobs.live.signal_content import SignalContent, recorded
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import (
    LiveRunRepository,
    LiveSignalRepository,
    SequenceTaken,
    gate_to_row,
    stats_to_row,
)
from backtestd.storage.db.repositories.paper import PaperRepository

log = logging.getLogger(__name__)

STATS_EVERY_MS = 5_000
LAG_MS = 30_000
"""How late (market time) the last update may be processed before the run is ``LAGGING``."""
CONTROL_EVERY_S = 0.5


class StrategyFailed(Exception):
    """The strategy failed in an engine (its own fault: an exception, an overrun, a crash)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CannotConsume(StrategyFailed):
    """The strategy cannot consume the run's source type: the run can never work."""


class LiveEngine(Protocol):
    """One execution of a run's strategy: a JVM with one session per instrument."""

    @property
    def handles_commands(self) -> bool: ...

    def feed(
        self, instrument: Instrument, ts_ms: int, values: Sequence[float]
    ) -> list[SignalContent]: ...

    def set_params(self, params: Mapping[str, ParamValue], version: int) -> None: ...

    def command(self, text: str, properties: dict[str, str], ts_ms: int) -> list[SignalContent]: ...

    def executions(self) -> Mapping[str, StrategyExecution]:
        """What the strategy set for its own execution, per instrument (paper trading)."""
        ...

    def close(self) -> None: ...


class Update(Protocol):
    instrument: Instrument
    ts_ms: int

    @property
    def values(self) -> Sequence[float]: ...


EngineFactory = Callable[[LiveRunRecord, Sequence[Instrument]], LiveEngine]
FeedStream = Callable[[LiveRunRecord, Sequence[Instrument], int, threading.Event], Iterator[Any]]


@dataclass
class Counters:
    processed: int = 0
    seen: set[str] = field(default_factory=set)
    window: list[tuple[int, int]] = field(default_factory=list)  # (wall ms, processed)
    progressed_at_ms: int | None = None
    position_ms: int = 0
    lag_ms: int = 0


class LiveExecution:
    """Runs one run until it stops, fails, or the lease is lost (``stop`` set by the owner)."""

    def __init__(
        self,
        record: LiveRunRecord,
        execution_number: int,
        instruments: Sequence[Instrument],
        database: Database,
        engines: EngineFactory,
        feed: FeedStream,
        market_now: Callable[[], int],
        wall_now: Callable[[], int],
        signal_window: Callable[[str], None],
        clock_rate: float = 1.0,
    ) -> None:
        self.record = record
        self.run_id = record.run_id
        self._execution_number = execution_number
        self._instruments = list(instruments)
        self._database = database
        self._engines = engines
        self._feed = feed
        self._market_now = market_now
        self._wall_now = wall_now
        self._trim = signal_window
        self._clock_rate = clock_rate
        """Market seconds per wall second: lateness is judged in wall time."""
        self.stop = threading.Event()
        self.done = threading.Event()
        self._primary: LiveEngine | None = None
        self._twin: LiveEngine | None = None
        self._paper: LivePaper | None = None
        self._counters = Counters()
        self._next_seq = 1
        self._last_recorded_ts = -1
        self._params_version = record.params_version
        self._stage = record.stage
        self._degraded = record.state is LiveState.DEGRADED
        self._pending_changes: list[Any] = []
        self._pending_commands: list[Any] = []
        self._last_control = 0.0
        self._last_stats_ms = 0
        self._trial_started_ms: int | None = None
        self._live_from_ms = 0
        self._takeover_at_ms = 0
        """Market time a takeover began: signals of earlier updates fill the outage's gap."""

    # -- the thread ----------------------------------------------------------------------------

    def run(self) -> None:
        try:
            self._run()
        except SequenceTaken:
            # Another executor took the run over (this one's lease lapsed): it owns the record
            # now, so this execution stops without writing anything more.
            log.warning("live run %s is written by another executor; stopping here", self.run_id)
        except CannotConsume:
            self._set_state(LiveState.FAILED, reason=Reasons.CANNOT_CONSUME, stop=True)
        except StrategyFailed as failure:
            log.info("live run %s failed: %s", self.run_id, failure.message)
            self._set_state(LiveState.FAILED, reason=Reasons.STRATEGY_FAILED)
        except Exception:
            log.exception("live run %s failed in its executor", self.run_id)
            self._set_state(LiveState.FAILED, reason=Reasons.FAILED)
        finally:
            for engine in (self._primary, self._twin):
                if engine is not None:
                    try:
                        engine.close()
                    except Exception:
                        log.debug("closing an engine of %s", self.run_id, exc_info=True)
            self.done.set()

    def _run(self) -> None:
        start_from = self._resume_point()
        self._primary = self._engines(self.record, self._instruments)
        if self._stage is LiveStage.SANDBOX and not self._degraded:
            self._twin = self._engines(self.record, self._instruments)
        if self.record.paper is not None:
            with self._database.unit_of_work() as uow:
                stored = PaperRepository(uow.session).book(self.run_id)
            self._paper = LivePaper(self.record, stored)
            self._paper.configure(self._primary.executions())
        if self._execution_number > 1:
            self._record_restart()
        if self._paper is not None:
            self._paper.floor(self._last_recorded_ts)
        for update in self._feed(self.record, self._instruments, start_from, self.stop):
            if self.stop.is_set():
                break
            self._apply_due(update.ts_ms)
            self._step(update)
            if time.monotonic() - self._last_control >= CONTROL_EVERY_S:
                if not self._control():
                    break
        if self.stop.is_set() and self._wanted_stopped():
            self._set_state(LiveState.STOPPED)

    def _resume_point(self) -> int:
        """Where the feed starts: the warm-up window before now (first execution) or before the
        last processed position (a takeover), and from when signals are recorded."""
        with self._database.unit_of_work() as uow:
            last = LiveSignalRepository(uow.session).last(self.run_id)
            fresh = LiveRunRepository(uow.session).get(self.run_id)
            trial = LiveRunRepository(uow.session).trial_started(self.run_id)
        if last is not None:
            self._next_seq = last.seq + 1
            self._last_recorded_ts = last.event_ts_ms
        if fresh is not None:
            self.record = fresh
            self._params_version = fresh.params_version
        now = self._market_now()
        position = self.record.stats.position_ms if self.record.stats else None
        resume_at = position if (self._execution_number > 1 and position) else now
        self._live_from_ms = resume_at
        self._trial_started_ms = trial if trial is not None else now
        if trial is None:
            with self._database.unit_of_work() as uow:
                LiveRunRepository(uow.session).set_values(
                    self.run_id, {"trial_started_ms": self._trial_started_ms}
                )
        return resume_at - self.record.warm_from * 1000

    # -- one update ----------------------------------------------------------------------------

    def _step(self, update: Any) -> None:
        assert self._primary is not None
        values = update.values
        try:
            produced = self._primary.feed(update.instrument, update.ts_ms, values)
        except StrategyFailed:
            raise
        if self._twin is not None:
            try:
                twin = self._twin.feed(update.instrument, update.ts_ms, values)
            except StrategyFailed:
                twin = None
            if twin is None or [s.digest for s in twin] != [s.digest for s in produced]:
                self._disagree()
        counters = self._counters
        counters.position_ms = update.ts_ms
        if update.ts_ms >= self._live_from_ms:
            counters.processed += 1
            counters.seen.add(update.instrument.symbol)
            counters.progressed_at_ms = self._wall_now()
            counters.lag_ms = self._market_now() - update.ts_ms
            paper = None
            if self._paper is not None:
                paper = self._paper.update(
                    update.instrument, values, update.ts_ms, produced, self._params_version
                )
            self._record(produced, paper)
            if self._stage is LiveStage.SANDBOX:
                self._maybe_promote(update.ts_ms)

    def _record(self, produced: Sequence[SignalContent], paper: PaperStep | None = None) -> None:
        """Record the signals not recorded yet, each followed by the paper items it caused
        (after the items of the price itself), and store the paper book with them."""
        contents = list(paper.before) if paper is not None else []
        for index, content in enumerate(produced):
            if content.event_ts_ms > self._last_recorded_ts:
                contents.append(content)
            if paper is not None:
                contents += paper.after[index]
        if not contents and (paper is None or paper.state is None):
            return
        emitted = self._market_now()
        stage = self._stage.signal_stage
        signals: list[LiveSignal] = []
        for content in contents:
            regenerated = content.event_ts_ms < self._takeover_at_ms
            signals.append(
                recorded(self.run_id, self._next_seq, stage, content, emitted, regenerated)
            )
            self._next_seq += 1
        self._append(signals, paper)

    def _append(self, signals: Sequence[LiveSignal], paper: PaperStep | None = None) -> None:
        with self._database.unit_of_work() as uow:
            LiveSignalRepository(uow.session).append(signals)
            if paper is not None and paper.state is not None:
                books = PaperRepository(uow.session)
                books.save(self.run_id, paper.state, self._wall_now())
                books.add_points(self.run_id, paper.points)
        if signals:
            self._trim(self.run_id)

    def _record_restart(self) -> None:
        """The takeover, visible in the record: a ``marker`` of kind ``restart`` at the position
        the run resumes from. Signals of the updates between that position and now are then
        recorded as they are replayed, marked ``regenerated`` (they fill the gap the outage
        left), except those already recorded before it."""
        source = self.record.source
        self._takeover_at_ms = self._market_now()
        content = SignalContent(
            type=SignalType.MARKER,
            event_ts_ms=max(self._live_from_ms, self._last_recorded_ts),
            instrument={"exchange": source.exchange, "segment": source.segment},
            kind="restart",
            data={"execution": self._execution_number, "resumed_from_ms": self._live_from_ms},
            params_version=self._params_version,
        )
        signals = [
            recorded(
                self.run_id, self._next_seq, self._stage.signal_stage, content, self._market_now()
            )
        ]
        self._next_seq += 1
        paper = None
        if self._paper is not None:  # the positions the last execution left open: gaps
            paper = self._paper.restart(content.event_ts_ms, self._params_version)
            for item in paper.before:
                signals.append(
                    recorded(
                        self.run_id,
                        self._next_seq,
                        self._stage.signal_stage,
                        item,
                        self._market_now(),
                    )
                )
                self._next_seq += 1
        self._append(signals, paper)

    # -- params and commands -------------------------------------------------------------------

    def _apply_due(self, ts_ms: int) -> None:
        while self._pending_changes and self._pending_changes[0].effective_at_ms <= ts_ms:
            change = self._pending_changes.pop(0)
            for engine in self._engines_in_use():
                engine.set_params(dict(change.params), change.version)
            self._params_version = change.version
        while self._pending_commands and self._pending_commands[0].effective_at_ms <= ts_ms:
            command = self._pending_commands.pop(0)
            produced: list[SignalContent] = []
            twin_produced: list[SignalContent] | None = None
            assert self._primary is not None
            produced = self._primary.command(command.command, dict(command.properties), ts_ms)
            if self._twin is not None:
                twin_produced = self._twin.command(command.command, dict(command.properties), ts_ms)
                if [s.digest for s in twin_produced] != [s.digest for s in produced]:
                    self._disagree()
            source = self.record.source
            note = SignalContent(
                type=SignalType.COMMAND,
                event_ts_ms=ts_ms,
                instrument={"exchange": source.exchange, "segment": source.segment},
                kind=command.command,
                data=dict(command.properties),
                params_version=self._params_version,
            )
            contents = [note, *produced]
            paper = None
            if self._paper is not None and ts_ms >= self._live_from_ms:
                paper = self._paper.signals(contents, self._params_version)
            self._record(contents, paper)
            with self._database.unit_of_work() as uow:
                LiveRunRepository(uow.session).forget_commands([command.command_id])

    def _engines_in_use(self) -> list[LiveEngine]:
        return [e for e in (self._primary, self._twin) if e is not None]

    # -- control, stats, stage -----------------------------------------------------------------

    def _control(self) -> bool:
        """Read what is wanted (stop, params, commands); write stats. False: stop now."""
        self._last_control = time.monotonic()
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            record = runs.get(self.run_id)
            if record is None or record.desired is LiveDesired.STOPPED:
                self.stop.set()
                return False
            known = {c.version for c in self._pending_changes}
            for change in runs.params_changes_after(self.run_id, self._params_version):
                if change.version not in known:
                    self._pending_changes.append(change)
            pending = {c.command_id for c in self._pending_commands}
            for command in runs.pending_commands(self.run_id):
                if command.command_id not in pending:
                    self._pending_commands.append(command)
            self._pending_commands.sort(key=lambda c: (c.effective_at_ms, c.command_id))
            now = self._wall_now()
            values: dict[str, object] = {}
            healthy = self._health(record.state)
            if healthy is not None and healthy is not record.state:
                values["state"] = healthy.value
                values["updated_at_ms"] = max(now, record.updated_at_ms + 1)
            if now - self._last_stats_ms >= STATS_EVERY_MS:
                values["stats"] = self._stats(now)
                self._last_stats_ms = now
            if values:
                runs.set_values(self.run_id, values)
        return True

    def _health(self, state: LiveState) -> LiveState | None:
        """``RUNNING`` once fed, ``LAGGING`` while the updates processed trail the market
        clock by more than ``LAG_MS`` (self-clearing); ``DEGRADED`` and ``FAILED`` stay."""
        if state in (LiveState.DEGRADED, LiveState.FAILED, LiveState.STOPPED):
            return None
        if not self._counters.processed:
            return None
        late = self._counters.lag_ms > LAG_MS * self._clock_rate
        return LiveState.LAGGING if late else LiveState.RUNNING

    def _stats(self, now: int) -> dict[str, object]:
        c = self._counters
        c.window.append((now, c.processed))
        c.window = [w for w in c.window if now - w[0] <= 60_000]
        first = c.window[0]
        span = (now - first[0]) / 1000
        rate = (c.processed - first[1]) / span if span > 0 else 0.0
        return stats_to_row(
            LiveStats(
                c.processed, round(rate, 3), len(c.seen), now, c.progressed_at_ms, c.position_ms
            )
        )

    def _maybe_promote(self, ts_ms: int) -> None:
        minutes = self.record.sandbox_minutes or 0
        started = self._trial_started_ms or ts_ms
        if self._degraded or self._twin is None:
            return
        long_enough = ts_ms - started >= minutes * 60_000
        fed = self._counters.processed >= 60 * minutes
        capped = ts_ms - started >= 1440 * 60_000
        if not ((long_enough and fed) or capped):
            return
        gate = LiveGate(
            passed=long_enough and fed, checks=GateChecks(fed=fed), evaluated_at_ms=ts_ms
        )
        if not gate.passed:
            self._set_state(LiveState.DEGRADED, gate=gate)
            self._degraded = True
            twin, self._twin = self._twin, None
            twin.close()
            return
        self._stage = LiveStage.LIVE
        twin, self._twin = self._twin, None
        twin.close()
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            record = runs.get(self.run_id)
            updated = max(self._wall_now(), (record.updated_at_ms + 1) if record else 0)
            runs.set_values(
                self.run_id,
                {
                    "stage": LiveStage.LIVE.value,
                    "gate": gate_to_row(gate),
                    "updated_at_ms": updated,
                },
            )

    def _disagree(self) -> None:
        if self._degraded:
            return
        self._degraded = True
        twin, self._twin = self._twin, None
        if twin is not None:
            twin.close()
        gate = LiveGate(
            passed=False,
            checks=GateChecks(agreement=False),
            evaluated_at_ms=self._counters.position_ms,
        )
        self._set_state(LiveState.DEGRADED, gate=gate)

    def _wanted_stopped(self) -> bool:
        with self._database.unit_of_work() as uow:
            record = LiveRunRepository(uow.session).get(self.run_id)
        return record is None or record.desired is LiveDesired.STOPPED

    def _set_state(
        self,
        state: LiveState,
        *,
        reason: str | None = None,
        gate: LiveGate | None = None,
        stop: bool = False,
    ) -> None:
        """Record a new state; ``stop``: the platform sets ``desired: STOPPED`` (a run that can
        never work, §1)."""
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            record = runs.get(self.run_id)
            if record is None:
                return
            values: dict[str, object] = {
                "state": state.value,
                "updated_at_ms": max(self._wall_now(), record.updated_at_ms + 1),
            }
            if reason is not None:
                values["reason"] = reason
            if stop:
                values["desired"] = LiveDesired.STOPPED.value
            if gate is not None:
                values["gate"] = gate_to_row(gate)
            if self._counters.processed:
                values["stats"] = self._stats(self._wall_now())
            runs.set_values(self.run_id, values)
