"""Live sessions in a real engine host JVM (``LiveHost``): a strategy fed one market update at a
time emits exactly what a backtest run over the same rows emits; parameters, commands, failures
and the isolation of one live host from another."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from tests.support.services import requires_java
from tests.support.strategies import source

from backtestd.domain.backtests import ParamValue
from backtestd.domain.marketdata import DataType, Instrument
from backtestd.engine.prepare import assemble
from backtestd.marketdata.sim.generator import SimExchange
from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    HostConfig,
    LiveHost,
    LiveSessionInfo,
    LiveSessionLost,
    LiveSignal,
    MarketUpdate,
    RunFailure,
    RunFailureKind,
    RunRequest,
    RunResult,
    Side,
    SignalType,
    updates_from_columns,
    write_columns,
)
from backtestd.strategy.language import Language, detect_language
from backtestd.strategy.qtscript import compile_qtscript

pytestmark = requires_java

BTC = Instrument("BTC", "USDT")
HOUR = datetime(2025, 3, 4, 10, tzinfo=UTC)
CPU_S = 5.0

Columns = dict[str, npt.NDArray[Any]]

# An update() override (the harness's slow path), buys carrying fields, info signals with a
# nested chart marker, a log line: everything a run's answer carries besides plain signals.
REPORTER = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.BuySignal;

public class Reporter extends AbstractTickerStrategy {
    private int seen;
    private double low = Double.MAX_VALUE;

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().sma("mean", 30);
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        seen++;
        if (ticker.last() < low) {
            low = ticker.last();
            emitSignal(new BuySignal(ticker.instrument(), ticker.ask())
                    .set("low", low).set("seen", seen));
        }
        if (seen % 97 == 0) {
            emitSignal(createInfoStrategySignal(ticker.instrument()).set("seen", seen)
                    .set("mean", getRTIndicator(ticker.instrument(), "mean").get().getValue())
                    .set("_m", "shape", "circle", "text", "n" + seen));
            log.info("checkpoint {}", seen);
        }
        if (seen % 311 == 0) {
            emitSell(ticker.instrument(), ticker.bid());
        }
    }
}
"""

# Stateless: each update is judged on its own with the parameters in force, so the signals of
# rows after a parameter change are those of a run started with the new values on those rows.
ECHO = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.BuySignal;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

public class Echo extends AbstractTickerStrategy {
    @StrategyProperty(name = "level", description = "buy above", defaultValue = "100")
    private double level = 100;

    private String tag = "start";

    @StrategyProperty(name = "tag", description = "label", defaultValue = "start")
    public void setTag(String tag) {
        this.tag = tag;
    }

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        if (ticker.last() > level) {
            emitSignal(new BuySignal(ticker.instrument(), ticker.last())
                    .set("level", level).set("tag", tag));
        } else {
            emitInfo("below", level, "tag", tag);
        }
    }
}
"""

COMMANDER = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.CommandRequest;
import com.wualabs.qtsurfer.engine.strategy.CommandRequestHandler;

public class Commander extends AbstractTickerStrategy implements CommandRequestHandler {
    private int commands;
    private double last = Double.NaN;

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        last = ticker.last();
    }

    @Override
    public void onCommand(CommandRequest request) {
        commands++;
        emitInfo("command", request.getCommand(), "count", commands, "qty", request.get("qty"),
                "properties", request.getProperties().size());
        if ("buy".equals(request.getCommand())) {
            emitBuy(getInstruments().iterator().next(), last);
        }
    }
}
"""

COMMANDED_QTS = """\
strategy "Commanded"

param size = 1.0 "Order size"

onCommand {
  size = size + 1;
  emitInfo("command", $command, "size", size);
}
"""

THROWER = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class Thrower extends AbstractTickerStrategy {
    private int seen;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        if (++seen == 5) {
            throw new IllegalStateException("the fifth update");
        }
        emitBuy(ticker.instrument(), ticker.last());
    }
}
"""

SPINNER = (
    THROWER.replace("Thrower", "Spinner")
    .replace("++seen == 5", "++seen == 2")
    .replace(
        'throw new IllegalStateException("the fifth update");',
        "while (ticker.last() > 0) { seen = seen * 31 + 1; }",
    )
)

HOG = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import java.util.ArrayList;
import java.util.List;

public class Hog extends AbstractTickerStrategy {
    private final List<long[]> kept = new ArrayList<>();
    private int seen;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        while (++seen >= 2 && ticker.last() > 0) {
            kept.add(new long[1 << 20]);
        }
        emitBuy(ticker.instrument(), ticker.last());
    }
}
"""

DICE = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import java.time.Instant;
import java.util.Random;

public class Dice extends AbstractTickerStrategy {
    private final Random random = new Random();

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        if (random.nextBoolean()) {
            emitBuy(ticker.instrument(), ticker.last());
        }
        emitInfo("draw", random.nextLong(), "at", Instant.now().toString());
    }
}
"""


# -- data and helpers --------------------------------------------------------------------------


def prepared(kind: DataType, hours: int = 1, cadence_ms: int = 1000) -> Columns:
    """The columns a prepare of ``kind`` builds over ``hours`` of the simulated exchange's BTC/USDT
    (the prepare job's own kernel, ``assemble``)."""
    sim = SimExchange(coverage_start=HOUR - timedelta(days=1))
    frames = [sim.generate(BTC, kind.kind, HOUR + timedelta(hours=h)) for h in range(hours)]
    return assemble(kind.value, frames, cadence_ms)


Signal = tuple[int, int, float | None, str]
"""A signal as compared here: market time, side (+1/-1/0), price (None for info), its fields as
JSON text (key order included; NaN-safe)."""


def of_run(result: RunResult) -> list[Signal]:
    return [
        (int(t), int(s), None if s == 0 else float(p), json.dumps(info))
        for t, s, p, info in zip(
            result.signal_ts.tolist(),
            result.signal_side.tolist(),
            result.signal_price.tolist(),
            result.info,
            strict=True,
        )
    ]


def of_live(signals: Sequence[LiveSignal]) -> list[Signal]:
    sides = {Side.BUY: 1, Side.SELL: -1, None: 0}
    return [(s.ts_ms, sides[s.side], s.price, json.dumps(s.data)) for s in signals]


def chunks(updates: Sequence[MarketUpdate], seed: int) -> Iterator[Sequence[MarketUpdate]]:
    """``updates`` in consecutive batches of 1 to 40."""
    rng = np.random.default_rng(seed)
    at = 0
    while at < len(updates):
        size = int(rng.integers(1, 41))
        yield updates[at : at + size]
        at += size


@pytest.fixture(scope="module")
def engine() -> Iterator[EngineHost]:
    with EngineHost(HostConfig(heap_mb=256)) as host:
        yield host


@pytest.fixture(scope="module")
def live() -> Iterator[LiveHost]:
    with LiveHost() as host:
        yield host


class Compiler:
    """Compiles Java and QTScript once per text (module-wide)."""

    def __init__(self, engine: EngineHost) -> None:
        self.engine = engine
        self.done: dict[str, CompileResult] = {}

    def __call__(self, text: str) -> CompileResult:
        if text not in self.done:
            if detect_language(text) is Language.QTSCRIPT:
                generated = compile_qtscript(text)
                result = self.engine.compile(generated.java_source, generated.class_name)
            else:
                result = self.engine.compile(text)
            assert result.ok, result.diagnostics
            assert result.main_class
            self.done[text] = result
        return self.done[text]


@pytest.fixture(scope="module")
def compiled(engine: EngineHost) -> Compiler:
    return Compiler(engine)


def reference(
    engine: EngineHost,
    strategy: CompileResult,
    kind: DataType,
    columns: Columns,
    directory: Path,
    params: Mapping[str, ParamValue],
    rows: tuple[int, int] | None = None,
) -> RunResult:
    """A normal backtest run over the column files of ``columns``."""
    assert strategy.main_class is not None
    paths = write_columns(directory, kind, columns)
    request = RunRequest(
        strategy.class_files, strategy.main_class, kind, paths, BTC, params, rows=rows
    )
    return engine.run(request)


def open_session(
    host: LiveHost,
    strategy: CompileResult,
    kind: DataType,
    params: Mapping[str, ParamValue] | None = None,
    *,
    cpu_limit_s: float = CPU_S,
) -> LiveSessionInfo:
    assert strategy.main_class is not None
    return host.open(
        strategy.class_files, strategy.main_class, kind, BTC, params, cpu_limit_s=cpu_limit_s
    )


# -- (a) the same signals as a run ----------------------------------------------------------------

CASES: dict[str, tuple[str, DataType, dict[str, ParamValue]]] = {
    "java-ticker": (source("ema_cross.java"), DataType.TICKER, {"fast": 5, "slow": 13}),
    "java-kline": (source("sma_cross_kline.java"), DataType.KLINE, {"fast": 5, "slow": 20}),
    "qts-ticker": (source("ema_cross.qts"), DataType.TICKER, {"slow": 13}),
    "qts-kline": (source("breakout.qts"), DataType.KLINE, {"minRange": 0.0}),
    "java-fields": (REPORTER, DataType.TICKER, {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_updates_one_at_a_time_and_in_batches_give_the_signals_of_a_run(
    case: str, engine: EngineHost, live: LiveHost, compiled: Compiler, tmp_path: Path
) -> None:
    text, kind, params = CASES[case]
    strategy = compiled(text)
    columns = prepared(kind)
    expected = of_run(reference(engine, strategy, kind, columns, tmp_path, params))
    assert len(expected) >= 10, "too few signals to compare anything"
    updates = updates_from_columns(kind, columns)
    last_event = updates[-1].event_ts_ms

    single = open_session(live, strategy, kind, params)
    got: list[LiveSignal] = []
    for update in updates:
        result = live.feed(single, update)
        assert result.processed == 1
        assert result.market_ts_ms == update.event_ts_ms
        assert all(s.ts_ms == update.event_ts_ms for s in result.signals)
        got.extend(result.signals)
    live.close(single)
    assert of_live(got) == expected

    batched = open_session(live, strategy, kind, params)
    got = []
    for batch in chunks(updates, seed=len(case)):
        result = live.feed(batched, batch)
        assert result.processed == len(batch)
        got.extend(result.signals)
    assert result.market_ts_ms == last_event
    live.close(batched)
    assert of_live(got) == expected


def test_signals_are_typed_hints_and_infos_with_their_fields(
    live: LiveHost, compiled: Compiler
) -> None:
    session = open_session(live, compiled(REPORTER), DataType.TICKER)
    updates = updates_from_columns(DataType.TICKER, prepared(DataType.TICKER))[:400]
    result = live.feed(session, updates)
    live.close(session)
    buy = next(s for s in result.signals if s.side is Side.BUY)
    assert buy.type is SignalType.HINT
    assert buy.price is not None
    assert buy.price_text == repr(buy.price)
    assert list(buy.data) == ["low", "seen"]
    info = next(s for s in result.signals if s.type is SignalType.INFO)
    assert (info.side, info.price, info.price_text) == (None, None, None)
    assert info.data["_m"] == {"shape": "circle", "text": f"n{info.data['seen']}"}
    sell = next(s for s in result.signals if s.side is Side.SELL)
    assert sell.type is SignalType.HINT
    assert sell.data == {}
    assert "[INFO] checkpoint 97" in result.notices


def test_a_strategy_is_refused_data_it_cannot_consume(live: LiveHost, compiled: Compiler) -> None:
    with pytest.raises(RunFailure) as failure:
        open_session(live, compiled(source("ema_cross.java")), DataType.KLINE)
    assert failure.value.kind is RunFailureKind.BAD_REQUEST
    assert failure.value.details["refused"] == "source"


def test_a_property_error_at_open_is_a_property_error(live: LiveHost, compiled: Compiler) -> None:
    with pytest.raises(RunFailure) as failure:
        open_session(live, compiled(ECHO), DataType.TICKER, {"levle": 3})
    assert failure.value.kind is RunFailureKind.PROPERTY_ERROR
    assert failure.value.declared_properties == ("level", "tag")


# -- (b) parameters ------------------------------------------------------------------------------


def test_new_params_hold_from_the_next_update_on(
    engine: EngineHost, live: LiveHost, compiled: Compiler, tmp_path: Path
) -> None:
    strategy = compiled(ECHO)
    columns = prepared(DataType.TICKER)
    updates = updates_from_columns(DataType.TICKER, columns)
    half = len(updates) // 2
    before = {"level": float(np.max(columns["last"])) + 1, "tag": "start"}
    after = {"level": float(np.median(columns["last"][half:])), "tag": "new"}

    session = open_session(live, strategy, DataType.TICKER, before)
    first = [s for u in updates[:half] for s in live.feed(session, u).signals]
    assert live.set_params(session, {"level": after["level"], "tag": "new"}) == ()
    second = [s for u in updates[half:] for s in live.feed(session, u).signals]

    assert first[-1].data == {"below": before["level"], "tag": "start"}
    assert second[0].data in (
        {"below": after["level"], "tag": "new"},
        {"level": after["level"], "tag": "new"},
    )
    assert of_live(first) == of_run(
        reference(engine, strategy, DataType.TICKER, columns, tmp_path, before, (0, half))
    )
    expected_after = of_run(
        reference(engine, strategy, DataType.TICKER, columns, tmp_path, after, (half, len(updates)))
    )
    assert of_live(second) == expected_after
    assert any(s.type is SignalType.HINT for s in second)

    # a bad update changes nothing, and the session goes on with the values in force
    for bad in ({"levle": 1}, {"level": "high"}):
        with pytest.raises(RunFailure) as failure:
            live.set_params(session, bad)
        assert failure.value.kind is RunFailureKind.PROPERTY_ERROR
        assert failure.value.declared_properties == ("level", "tag")
    again = live.feed(session, updates[-1]).signals
    assert of_live(again) == expected_after[-1:]
    live.close(session)


# -- (c) commands --------------------------------------------------------------------------------


def test_a_command_reaches_a_java_handler_once_at_the_market_time(
    live: LiveHost, compiled: Compiler
) -> None:
    session = open_session(live, compiled(COMMANDER), DataType.TICKER)
    assert session.handles_commands
    updates = updates_from_columns(DataType.TICKER, prepared(DataType.TICKER))[:30]

    early = live.command_result(session, "hello")
    assert early.signals == ()
    assert early.market_ts_ms is None
    assert "a signal emitted before the first data event was ignored" in early.notices

    assert live.feed(session, updates[:10]).signals == ()
    signals = live.command(session, "buy", {"qty": 2, "note": "x"})
    at = updates[9].event_ts_ms
    assert [(s.ts_ms, s.type, s.side) for s in signals] == [
        (at, SignalType.INFO, None),
        (at, SignalType.HINT, Side.BUY),
    ]
    assert signals[0].data == {"command": "buy", "count": 2, "qty": "2", "properties": 2}
    assert signals[1].price == updates[9].row()[5]  # the last price it saw

    assert live.feed(session, updates[10:]).signals == ()  # nothing delivered again
    signals = live.command(session, "hold")
    assert [s.data for s in signals] == [
        {"command": "hold", "count": 3, "qty": None, "properties": 0}
    ]
    assert signals[0].ts_ms == updates[-1].event_ts_ms
    live.close(session)


def test_a_command_reaches_a_qtscript_on_command_block(live: LiveHost, compiled: Compiler) -> None:
    session = open_session(live, compiled(COMMANDED_QTS), DataType.TICKER)
    assert session.handles_commands
    updates = updates_from_columns(DataType.TICKER, prepared(DataType.TICKER))[:3]
    live.feed(session, updates)
    assert [s.data for s in live.command(session, "more")] == [{"command": "more", "size": 2.0}]
    assert [s.data for s in live.command(session, "again")] == [{"command": "again", "size": 3.0}]
    live.close(session)


def test_a_strategy_without_a_handler_is_refused_commands_and_keeps_running(
    live: LiveHost, compiled: Compiler
) -> None:
    session = open_session(live, compiled(source("ema_cross.java")), DataType.TICKER)
    assert not session.handles_commands
    updates = updates_from_columns(DataType.TICKER, prepared(DataType.TICKER))[:5]
    with pytest.raises(RunFailure) as failure:
        live.command(session, "buy")
    assert failure.value.kind is RunFailureKind.BAD_REQUEST
    assert failure.value.details["refused"] == "commands"
    assert live.feed(session, updates).processed == 5
    live.close(session)


# -- (d) failures ----------------------------------------------------------------------------------


def test_an_exception_ends_its_session_only(compiled: Compiler) -> None:
    updates = updates_from_columns(DataType.TICKER, prepared(DataType.TICKER))[:20]
    with LiveHost() as host, LiveHost() as other:
        thrower = open_session(host, compiled(THROWER), DataType.TICKER)
        neighbour = open_session(host, compiled(THROWER), DataType.TICKER)
        far = open_session(other, compiled(THROWER), DataType.TICKER)
        pid = host.pid
        for update in updates[:4]:
            assert len(host.feed(thrower, update).signals) == 1
        with pytest.raises(RunFailure) as failure:
            host.feed(thrower, updates[4])
        assert failure.value.kind is RunFailureKind.USER_EXCEPTION
        assert failure.value.exception_class == "java.lang.IllegalStateException"
        assert [f.method for f in failure.value.frames] == ["update"]
        with pytest.raises(LiveSessionLost, match="user_exception"):
            host.feed(thrower, updates[5])

        # in a batch, the rows before the failing one were processed
        with pytest.raises(RunFailure) as failure:
            host.feed(neighbour, updates[:10])
        assert failure.value.details["events"] == 4
        assert host.pid == pid
        assert host.lost_reason is None

        fresh = open_session(host, compiled(THROWER), DataType.TICKER)
        assert len(host.feed(fresh, updates[:4]).signals) == 4
        assert len(other.feed(far, updates[:4]).signals) == 4
        assert [s.session_id for s in host.sessions] == [fresh.session_id]


@pytest.mark.parametrize(
    ("text", "kind"),
    [(SPINNER, RunFailureKind.LIMIT_EXCEEDED), (HOG, RunFailureKind.OUT_OF_MEMORY)],
    ids=["spins", "exhausts-the-heap"],
)
def test_a_failure_that_ends_the_jvm_loses_its_host_and_no_other(
    text: str, kind: RunFailureKind, compiled: Compiler
) -> None:
    updates = updates_from_columns(DataType.TICKER, prepared(DataType.TICKER))[:20]
    with LiveHost() as host, LiveHost() as other:
        culprit = open_session(host, compiled(text), DataType.TICKER, cpu_limit_s=1.0)
        neighbour = open_session(host, compiled(THROWER), DataType.TICKER)
        far = open_session(other, compiled(THROWER), DataType.TICKER)
        pid, other_pid = host.pid, other.pid
        assert len(host.feed(culprit, updates[0]).signals) == 1
        assert len(other.feed(far, updates[0]).signals) == 1

        with pytest.raises(RunFailure) as failure:
            host.feed(culprit, updates[1:3])
        assert failure.value.kind is kind
        assert kind.value in (host.lost_reason or "")
        for lost in (culprit, neighbour):
            with pytest.raises(LiveSessionLost):
                host.feed(lost, updates[3])
        assert host.sessions == ()

        assert len(other.feed(far, updates[1:4]).signals) == 3
        assert other.pid == other_pid
        assert other.lost_reason is None

        again = open_session(host, compiled(THROWER), DataType.TICKER)
        assert host.pid not in (None, pid)
        assert len(host.feed(again, updates[:3]).signals) == 3


def test_killing_a_live_host_stops_a_call_in_flight_and_no_other_host(compiled: Compiler) -> None:
    updates = updates_from_columns(DataType.TICKER, prepared(DataType.TICKER))[:5]
    with LiveHost() as host, LiveHost() as other:
        stuck = open_session(host, compiled(SPINNER), DataType.TICKER, cpu_limit_s=60.0)
        far = open_session(other, compiled(THROWER), DataType.TICKER)
        outcome: list[BaseException] = []

        def feed() -> None:
            try:
                host.feed(stuck, updates[:3])
            except BaseException as exc:  # the test inspects it below
                outcome.append(exc)

        caller = threading.Thread(target=feed)
        started = time.monotonic()
        caller.start()
        time.sleep(1.0)
        host.kill()
        caller.join(timeout=20)
        assert not caller.is_alive()
        assert time.monotonic() - started < 15  # long before the 60 s CPU limit
        assert isinstance(outcome[0], RunFailure)
        assert outcome[0].kind is RunFailureKind.HOST_CRASHED
        with pytest.raises(LiveSessionLost):
            host.feed(stuck, updates[3])
        assert len(other.feed(far, updates[:4]).signals) == 4


# -- (e) what the sandbox twin check relies on ---------------------------------------------------


def test_a_nondeterministic_strategy_differs_between_two_live_hosts(compiled: Compiler) -> None:
    updates = updates_from_columns(DataType.TICKER, prepared(DataType.TICKER))[:50]
    outputs = []
    for _ in range(2):
        with LiveHost() as host:
            session = open_session(host, compiled(DICE), DataType.TICKER)
            outputs.append(of_live([s for u in updates for s in host.feed(session, u).signals]))
    assert outputs[0] != outputs[1]
    draws = [[s[3] for s in out if s[1] == 0] for out in outputs]
    assert len(draws[0]) == len(draws[1]) == 50
    assert all(a != b for a, b in zip(*draws, strict=True))  # every draw differs
