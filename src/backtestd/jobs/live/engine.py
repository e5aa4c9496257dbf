"""One execution's engine: a dedicated engine host JVM with one session per instrument.

Each execution gets its own JVM (``LiveHost``), so a strategy that spins or exhausts memory
takes down its own execution only, and the sandbox twin runs in a second, separate JVM. A
strategy failure of any kind becomes :class:`StrategyFailed` for the run; the sentence users
see is fixed (``Reasons.STRATEGY_FAILED``), the engine's detail goes to the log.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence

from backtestd.domain.backtests import ParamValue
from backtestd.domain.live import LiveRunRecord, SignalType
from backtestd.domain.marketdata import DataType, Instrument
from backtestd.domain.strategies import StrategyRecord
from backtestd.engine.paper import StrategyExecution
from backtestd.jobs.live.execution import CannotConsume, StrategyFailed
from backtestd.jobs.live.signal_content import SignalContent
from backtestd.strategy.jvm.live_session import LiveHost, LiveSessionLost
from backtestd.strategy.jvm.live_types import (
    KlineUpdate,
    LiveSessionInfo,
    LiveSignal,
    MarketUpdate,
    TickerUpdate,
)
from backtestd.strategy.jvm.results import RunFailure, RunFailureKind

log = logging.getLogger(__name__)


class JvmLiveEngine:
    def __init__(
        self,
        strategy: StrategyRecord,
        record: LiveRunRecord,
        instruments: Sequence[Instrument],
        *,
        heap_mb: int,
        cpu_limit_s: float,
    ) -> None:
        self._record = record
        self._kind = record.source.type
        self._exchange = record.source.exchange
        self._segment = record.source.segment
        self._params_version = record.params_version
        self._host = LiveHost(heap_mb=heap_mb)
        self._sessions: dict[str, LiveSessionInfo] = {}
        try:
            for instrument in instruments:
                self._sessions[instrument.symbol] = self._host.open(
                    strategy.class_files,
                    strategy.main_class,
                    self._kind,
                    instrument,
                    dict(record.params),
                    cpu_limit_s=cpu_limit_s,
                )
        except (RunFailure, LiveSessionLost) as failure:
            self._host.close_all()
            if (
                isinstance(failure, RunFailure)
                and failure.kind is RunFailureKind.BAD_REQUEST
                and failure.details.get("refused") == "source"
            ):
                raise CannotConsume(str(failure)) from failure
            raise StrategyFailed(f"could not start: {failure}") from failure

    @property
    def handles_commands(self) -> bool:
        return any(s.handles_commands for s in self._sessions.values())

    def feed(
        self, instrument: Instrument, ts_ms: int, values: Sequence[float]
    ) -> list[SignalContent]:
        session = self._sessions.get(instrument.symbol)
        if session is None:
            return []
        update = _update(self._kind, ts_ms, values)
        try:
            result = self._host.feed(session, update)
        except (RunFailure, LiveSessionLost) as failure:
            raise StrategyFailed(str(failure)) from failure
        return [self._content(s, instrument) for s in result.signals]

    def set_params(self, params: Mapping[str, ParamValue], version: int) -> None:
        self._params_version = version
        for session in self._sessions.values():
            try:
                self._host.set_params(session, params)
            except (RunFailure, LiveSessionLost) as failure:
                raise StrategyFailed(str(failure)) from failure

    def command(self, text: str, properties: Mapping[str, str], ts_ms: int) -> list[SignalContent]:
        out: list[SignalContent] = []
        for symbol, session in self._sessions.items():
            if not session.handles_commands:
                continue
            try:
                signals = self._host.command(session, text, dict(properties))
            except (RunFailure, LiveSessionLost) as failure:
                raise StrategyFailed(str(failure)) from failure
            instrument = Instrument.parse(symbol)
            out += [self._content(s, instrument) for s in signals]
        return out

    def executions(self) -> dict[str, StrategyExecution]:
        """The strategy's own execution settings per instrument, as it set them when its
        session opened (what ``execute`` reads from the end of its run)."""
        out: dict[str, StrategyExecution] = {}
        for symbol, session in self._sessions.items():
            gain = session.percent_gain
            out[symbol] = StrategyExecution(
                mode=session.execution_mode or "LONG",
                percent_gain=gain if math.isfinite(gain) and gain > 0 else None,
                multi_entry=session.multi_entry,
            )
        return out

    def close(self) -> None:
        self._host.close_all()

    def _content(self, signal: LiveSignal, instrument: Instrument) -> SignalContent:
        place = {"exchange": self._exchange, "segment": self._segment, "symbol": instrument.symbol}
        if signal.type.value == SignalType.HINT.value:
            return SignalContent(
                type=SignalType.HINT,
                event_ts_ms=signal.ts_ms,
                instrument=place,
                kind=signal.side.value if signal.side is not None else None,
                order={"order_kind": "MARKET", "price": signal.price_text},
                data=dict(signal.data) or None,
                params_version=self._params_version,
            )
        return SignalContent(
            type=SignalType.INFO,
            event_ts_ms=signal.ts_ms,
            instrument=place,
            data=dict(signal.data),
            params_version=self._params_version,
        )


def _update(kind: DataType, ts_ms: int, values: Sequence[float]) -> MarketUpdate:
    if kind is DataType.KLINE:
        close_ts, open_, high, low, close, volume = values
        return KlineUpdate(ts_ms, int(close_ts), open_, high, low, close, volume)
    bid, bid_size, ask, ask_size, last, volume = values
    return TickerUpdate(ts_ms, bid, bid_size, ask, ask_size, last, volume)
