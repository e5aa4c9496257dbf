"""The primary execution's paper book: the run's hints executed as a backtest would (§6).

Only the primary execution trades on paper (the sandbox twin never does: it is compared by its
signals alone). Each live update gives the book its price (a bar's close, a ticker's last),
then the hints the strategy emitted on it; what the book did comes back as ``type: paper``
signal contents (written to the record in ``output: mix`` runs, right after the signal that
caused them) and as the new state and curve entries, which the execution stores in the unit
of work that records the update's signals. A takeover loads that state, applies only updates
after the last one it holds (so nothing is counted twice), and turns the positions that were
open into gaps.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from backtestd.domain.live import LiveRunRecord, PaperConfig, SignalType
from backtestd.domain.marketdata import DataType, Instrument
from backtestd.domain.paper import AccountsMode, PaperBook, PaperEvent, PaperOutput, PaperPoint
from backtestd.engine.fills import FeeLeg
from backtestd.engine.paper import PaperSettings, PaperSimulation, StrategyExecution
from backtestd.jobs.live.signal_content import SignalContent


def paper_settings(config: PaperConfig) -> PaperSettings:
    return PaperSettings(
        initial_funding=config.initial_funding,
        buy_fee_rate=config.buy_fee_rate,
        sell_fee_rate=config.sell_fee_rate,
        fee_leg=FeeLeg(config.fee_leg.value),
        percent_amount_to_lock=config.percent_amount_to_lock,
        accounts=AccountsMode(config.accounts or AccountsMode.CURRENCY.value),
    )


@dataclass
class PaperStep:
    """What one update (or one command's signals) did on paper.

    ``before`` are the items caused by the price itself (the minute's marks, a take-profit),
    recorded before the update's signals; ``after[i]`` are the items caused by the ``i``-th
    signal, recorded right after it (items exist only in ``mix`` runs). ``state`` (None when
    the book did nothing) and ``points`` are what to store.
    """

    before: list[SignalContent] = field(default_factory=list)
    after: list[list[SignalContent]] = field(default_factory=list)
    state: Mapping[str, object] | None = None
    points: list[PaperPoint] = field(default_factory=list)
    changed: bool = False


class LivePaper:
    """One run's paper book inside its primary execution."""

    def __init__(self, record: LiveRunRecord, stored: PaperBook | None) -> None:
        assert record.paper is not None
        self._source = record.source
        self._kind = record.source.type
        self._mix = record.paper.output == PaperOutput.MIX.value
        self.simulation = PaperSimulation(
            paper_settings(record.paper), stored.state if stored is not None else None
        )
        self._through_ms = self.simulation.through_ms

    def configure(self, executions: Mapping[str, StrategyExecution]) -> None:
        for symbol, execution in executions.items():
            self.simulation.configure(symbol, execution)

    def floor(self, ts_ms: int) -> None:
        """Apply nothing at or before ``ts_ms`` (a takeover records only after its marker)."""
        if self._through_ms is None or ts_ms > self._through_ms:
            self._through_ms = ts_ms

    def restart(self, ts_ms: int, params_version: int) -> PaperStep:
        """The takeover's gaps (every position the previous execution left open)."""
        self.simulation.restart(ts_ms)
        step = PaperStep()
        step.before = self._take(step, params_version)
        return self._settled(step)

    def update(
        self,
        instrument: Instrument,
        values: Sequence[float],
        update_ts_ms: int,
        produced: Sequence[SignalContent],
        params_version: int,
    ) -> PaperStep | None:
        """One live update and the signals it produced; None for an update the stored book
        already holds (a takeover replays a little before where the last execution stopped)."""
        event_ts, price = self._mark(values, update_ts_ms)
        if self._through_ms is not None and event_ts <= self._through_ms:
            return None
        self.simulation.price(instrument.symbol, event_ts, price)
        step = PaperStep()
        step.before = self._take(step, params_version)
        self._hints(step, produced, params_version, (event_ts, price))
        return self._settled(step)

    def signals(self, produced: Sequence[SignalContent], params_version: int) -> PaperStep:
        """The hints among signals produced outside an update (a command's)."""
        step = PaperStep()
        self._hints(step, produced, params_version, None)
        return self._settled(step)

    def _hints(
        self,
        step: PaperStep,
        produced: Sequence[SignalContent],
        params_version: int,
        trigger: tuple[int, float] | None,
    ) -> None:
        """The hints among ``produced``, executed in order; ``trigger`` is the update's own
        (time, price): a ticker hint of that millisecond fills there, as ``execute`` fills a
        ticker signal at the tick that triggered it."""
        for content in produced:
            items: list[SignalContent] = []
            fresh = self._through_ms is None or content.event_ts_ms > self._through_ms
            if content.type is SignalType.HINT and content.symbol is not None and fresh:
                side = 1 if content.kind == "BUY" else -1 if content.kind == "SELL" else 0
                price = _price(content)
                if (
                    self._kind is DataType.TICKER
                    and trigger is not None
                    and trigger[0] == content.event_ts_ms
                    and math.isfinite(trigger[1])
                ):
                    price = trigger[1]
                if price is not None:
                    self.simulation.hint(content.symbol, content.event_ts_ms, side, price)
                items = self._take(step, params_version)
            step.after.append(items)

    def _take(self, step: PaperStep, params_version: int) -> list[SignalContent]:
        events, points = self.simulation.drain()
        if events or points:
            step.changed = True
        step.points += points
        if not self._mix:
            return []
        return [self._content(e, params_version) for e in events]

    def _settled(self, step: PaperStep) -> PaperStep:
        if step.changed:
            step.state = self.simulation.to_state()
        return step

    def _mark(self, values: Sequence[float], update_ts_ms: int) -> tuple[int, float]:
        """An update's event time and price: a bar's close time and close, a ticker's own
        time and last."""
        if self._kind is DataType.KLINE:
            return int(values[0]), float(values[4])
        return update_ts_ms, float(values[4])

    def _content(self, event: PaperEvent, params_version: int) -> SignalContent:
        place = None
        if event.symbol is not None:
            place = {
                "exchange": self._source.exchange,
                "segment": self._source.segment,
                "symbol": event.symbol,
            }
        return SignalContent(
            type=SignalType.PAPER,
            event_ts_ms=event.ts_ms,
            instrument=place,
            kind=event.kind.value,
            data=dict(event.data),
            params_version=params_version,
        )


def _price(content: SignalContent) -> float | None:
    order = content.order or {}
    text = order.get("price")
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None
