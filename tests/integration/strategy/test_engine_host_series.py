"""Series computed ahead (``RunSeries``/``SeriesCache``): a host that takes the values of data-fed
SMAs and EMAs from precomputed series gives, bit for bit, the signals and info of a host that
steps every indicator, whatever the strategy does with those indicators mid-run."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from tests.support.market_columns import bars, ticks_with_gaps
from tests.support.services import requires_java
from tests.support.strategies import ENGINE_IMPORTS, source

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    HostConfig,
    RunFailure,
    RunFailureKind,
    RunRequest,
    RunResult,
    locate_engine_jar,
    write_columns,
)

pytestmark = requires_java

_HEADER = ENGINE_IMPORTS

_PROPS = """
    @StrategyProperty(name = "a", description = "a period", defaultValue = "5")
    private int a = 5;

    @StrategyProperty(name = "b", description = "another period", defaultValue = "20")
    private int b = 20;
"""


def _windowed(
    name: str, base: str, *, setup: str, body: str, props: str = _PROPS, fields: str = ""
) -> str:
    """Strategy ``name`` extending ``base``: ``setupIndicators`` runs ``setup`` (a chain on
    ``ind`` ending in one window ``L``); ``L`` counts its calls in ``n``, then runs ``body``.
    ``props`` declares the strategy's properties, ``fields`` more fields of ``L``."""
    return (
        _HEADER
        + f"\npublic class {name} extends {base} {{"
        + props
        + "\n    @Override\n    protected void setupIndicators(InstrumentGroupRTIndicator ind) {\n"
        + setup
        + "\n    }\n\n    class L extends AbstractWindowListener {\n        private int n;\n"
        + fields
        + "\n        L(AbstractStrategy s, InstrumentGroupRTIndicator i) {\n"
        + "            super(s, i);\n        }\n\n        @Override\n"
        + "        public void onChange(StateStore store, double prev, double actual) {\n"
        + "            n++;\n"
        + body
        + "\n        }\n    }\n}\n"
    )


# Every precomputable form: SMAs and EMAs of the primary value without a price node (FIELD),
# of a price node and of another field's node (CHAIN, held), the continuous SMA; readers through
# getValue, buy and sell prices taken from them, info signals carrying their values.
FIELDS = _windowed(
    "Fields",
    "AbstractKlineStrategy",
    setup="""\
        ind.sma("s", a).ema("e", b).sma("c", b, false)
            .add("hi", TickerValueSource.High).sma("hs", "hi", a + 1).ema("he", "hi", b)
            .add("vol", TickerValueSource.Volume).sma("vs", "vol", b)
            .diff("d", "s", "e")
            .window("d", WindowTime.s1, new L(this, ind));""",
    body="""\
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("hs"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("c"));
            }
            if (n % 97 == 0) {
                emitSignal(createInfoSignal().set("s", indicators.getValue("s"))
                        .set("e", indicators.getValue("e")).set("he", indicators.getValue("he"))
                        .set("vs", indicators.getValue("vs")));
            }""",
)

# Reaches the indicators mid-run in every way that ends a replay: getExisting (and a readiness
# check through it) after 300 windows, a read-only view after 700, the readiness of a derived
# indicator (which asks its operands) after 1,100; the values read back go out as info.
TOUCHING = _windowed(
    "Touching",
    "AbstractKlineStrategy",
    setup="""\
        ind.addPrice().sma("fast", a).sma("slow", b).ema("x", b).diff("spread", "fast", "slow")
            .window("spread", WindowTime.s1, new L(this, ind));""",
    body="""\
            if (n == 300) {
                RTIndicator slow = indicators.getExisting("slow");
                emitSignal(createInfoSignal().set("ready", slow.isReady())
                        .set("v", slow.getValue()));
            }
            if (n == 700) {
                view = indicators.getReadOnlyExisting("x");
            }
            if (view != null && n % 50 == 0) {
                emitSignal(createInfoSignal().set("x", view.getValue()).set("r", view.isReady()));
            }
            if (n == 1100) {
                emitSignal(createInfoSignal().set("spreadReady",
                        indicators.getExisting("spread").isReady()));
            }
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("price"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("fast"));
            }""",
    fields="""\
        private RTIndicator view;
""",
)

# Ticks whose last price and bid are NaN now and then: a FIELD SMA skips those events, a CHAIN SMA
# of the price node is fed the price node's held value.
TICKS = _windowed(
    "Ticks",
    "AbstractTickerStrategy",
    setup="""\
        ind.sma("raw", a).addPrice().sma("held", "price", b).add("bid", TickerValueSource.Bid)
            .ema("eb", "bid", a).sma("sb", b).diff("d", "raw", "held")
            .window("d", WindowTime.s1, new L(this, ind));""",
    body="""\
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("eb"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("held"));
            }
            if (n % 89 == 0) {
                emitSignal(createInfoSignal().set("raw", indicators.getValue("raw"))
                        .set("sb", indicators.getValue("sb")));
            }""",
)

# Hands an indicator out while setting up: that one is never replayed, the others are.
HANDED_OUT = FIELDS.replace("class Fields", "class HandedOut").replace(
    '            .window("d", WindowTime.s1, new L(this, ind));\n',
    '            .window("d", WindowTime.s1, new L(this, ind));\n'
    '        ind.getReadOnlyExisting("e");\n',
)

VECTORS: list[dict[str, int]] = [{"a": a, "b": b} for a in (3, 5) for b in (8, 21)]


@pytest.fixture(scope="module")
def stepping() -> Iterator[EngineHost]:
    """A host that steps every indicator (no series computed ahead)."""
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256, series_cache_mb=0)) as host:
        yield host


@pytest.fixture(scope="module")
def replaying() -> Iterator[EngineHost]:
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256, series_cache_mb=64)) as host:
        yield host


@pytest.fixture(scope="module")
def kline_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_columns(tmp_path_factory.mktemp("bars"), DataType.KLINE, bars(6_000))


@pytest.fixture(scope="module")
def tick_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_columns(tmp_path_factory.mktemp("ticks"), DataType.TICKER, ticks_with_gaps(6_000))


def _compiled(host: EngineHost, text: str) -> CompileResult:
    result = host.compile(text)
    assert result.ok, [d.render() for d in result.diagnostics]
    return result


def _runs(
    host: EngineHost,
    text: str,
    kind: DataType,
    files: dict[str, Path],
    vectors: Sequence[dict[str, int]],
    rows: tuple[int, int] | None = None,
) -> list[RunResult]:
    compiled = _compiled(host, text)
    assert compiled.main_class is not None
    request = RunRequest(
        class_files=compiled.class_files,
        main_class=compiled.main_class,
        kind=kind,
        columns=files,
        instrument=Instrument("BTC", "USDT"),
        rows=rows,
    )
    outcomes = host.run_many(request, vectors)
    results = [o for o in outcomes if isinstance(o, RunResult)]
    assert len(results) == len(vectors), outcomes
    return results


def _assert_same(stepped: list[RunResult], replayed: list[RunResult]) -> None:
    for a, b in zip(stepped, replayed, strict=True):
        assert a.signal_count > 10
        assert a.signal_ts.tolist() == b.signal_ts.tolist()
        assert a.signal_side.tolist() == b.signal_side.tolist()
        assert a.signal_price.view(np.int64).tolist() == b.signal_price.view(np.int64).tolist()
        assert a.info == b.info
        assert a.notices == b.notices


SMA_CROSS_VECTORS = [{"fast": f, "slow": s} for f in (3, 7) for s in (12, 30)]


# Nodes a group cannot leave unstepped: a difference of a difference (an operand that is itself
# an operation), a user function of two replayed SMAs; and one appended by a listener mid-run,
# after which every node steps. Their values go out as info every 40 windows.
NOT_ALL_LAZY = _windowed(
    "NotAllLazy",
    "AbstractKlineStrategy",
    setup="""\
        ind.addPrice().sma("s", a).sma("t", b).diff("d", "s", "t").diff("dd", "d", "price")
            .fun("f", "s", "t", (x, y) -> x * 2 - y)
            .window("d", WindowTime.s1, new L(this, ind));""",
    body="""\
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("price"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("price"));
            }
            if (n % 40 == 0) {
                emitSignal(createInfoSignal().set("dd", indicators.getValue("dd"))
                        .set("f", indicators.getValue("f")));
            }""",
)
NESTED = NOT_ALL_LAZY.replace("class NotAllLazy", "class Nested").replace(
    '            .fun("f", "s", "t", (x, y) -> x * 2 - y)\n', '            .add("f", "s", "t")\n'
)
USER_FUNCTION = NOT_ALL_LAZY.replace("class NotAllLazy", "class UserFunction").replace(
    '.diff("dd", "d", "price")', '.add("dd", "s", "price")'
)
# While every node is unstepped, a listener appends one (an SMA of the price node) at its 200th
# window; the group steps every node from then on, the new one included.
_APPEND = """            if (n == 200) {
                indicators.sma("late", "price", 7);
            }
            if (n > 200 && n % 25 == 0) {
                emitSignal(createInfoSignal().set("late", indicators.getValue("late")));
            }
            if (n == 300) {"""
APPENDED = TOUCHING.replace("class Touching", "class Appended").replace(
    "            if (n == 300) {", _APPEND
)


@pytest.mark.parametrize(
    ("text", "vectors", "taken", "stepless"),
    [
        (FIELDS, VECTORS, 8, 6_000),
        (HANDED_OUT, VECTORS, 7, 0),
        (TOUCHING, VECTORS, 4, 300),
        (APPENDED, VECTORS, 4, 200),
        (NESTED, VECTORS, 3, 0),
        (USER_FUNCTION, VECTORS, 3, 0),
        (source("sma_cross_kline.java"), SMA_CROSS_VECTORS, 3, 6_000),
    ],
    ids=[
        "fields",
        "handed-out-at-setup",
        "touched-mid-run",
        "appended-mid-run",
        "operation-of-an-operation",
        "user-function",
        "sma-cross",
    ],
)
def test_kline_runs_give_the_same_bits_with_series_computed_ahead(
    stepping: EngineHost,
    replaying: EngineHost,
    kline_files: dict[str, Path],
    text: str,
    vectors: list[dict[str, int]],
    taken: int,
    stepless: int,
) -> None:
    """``stepless``: how many events each run takes without stepping any node (all replay, or
    are plain operations of two that do), until something reaches an indicator (the 300th
    window), a listener appends one (the 200th), or for the whole run (6,000 bars)."""
    stepped = _runs(stepping, text, DataType.KLINE, kline_files, vectors)
    replayed = _runs(replaying, text, DataType.KLINE, kline_files, vectors)
    _assert_same(stepped, replayed)
    assert {r.precomputed_indicators for r in stepped} == {0}
    assert {r.stepless_events for r in stepped} == {0}
    assert {r.precomputed_indicators for r in replayed} == {taken}
    assert {r.stepless_events for r in replayed} == {stepless}


def test_touched_indicators_are_brought_up_to_date_before_code_reads_them(
    replaying: EngineHost, kline_files: dict[str, Path]
) -> None:
    """What the strategy read mid-run is the indicator's own state: the SMA over the bars so far,
    recomputed here independently."""
    (result,) = _runs(replaying, TOUCHING, DataType.KLINE, kline_files, [{"a": 5, "b": 20}])
    first = result.info[result.signal_side.tolist().index(0)]
    assert first["ready"] is True
    close = bars(6_000)["close"]
    # window n fires after bar n (each 1 s bar closes its own window), over bars 0..n-1
    assert first["v"] == pytest.approx(float(np.mean(close[300 - 20 : 300])), rel=1e-12)


def test_ticks_with_missing_values_give_the_same_bits(
    stepping: EngineHost, replaying: EngineHost, tick_files: dict[str, Path]
) -> None:
    stepped = _runs(stepping, TICKS, DataType.TICKER, tick_files, VECTORS)
    replayed = _runs(replaying, TICKS, DataType.TICKER, tick_files, VECTORS)
    _assert_same(stepped, replayed)
    assert {r.precomputed_indicators for r in replayed} == {6}
    assert {r.stepless_events for r in replayed} == {6_000}


def test_a_row_range_takes_series_of_its_own_rows(
    stepping: EngineHost, replaying: EngineHost, kline_files: dict[str, Path]
) -> None:
    """The whole range first, then a part of it: the part must not reuse the whole's series."""
    _runs(replaying, FIELDS, DataType.KLINE, kline_files, VECTORS[:1])
    stepped = _runs(stepping, FIELDS, DataType.KLINE, kline_files, VECTORS, rows=(1_500, 4_500))
    replayed = _runs(replaying, FIELDS, DataType.KLINE, kline_files, VECTORS, rows=(1_500, 4_500))
    _assert_same(stepped, replayed)


def test_a_strategy_cannot_feed_its_group_by_hand(
    stepping: EngineHost, kline_files: dict[str, Path]
) -> None:
    """GroupDriver and EventFrame are engine plumbing: the sandbox refuses them (a warning at
    registration, and no run loads the classes)."""
    text = FIELDS.replace(
        "import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;",
        "import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;\n"
        "import com.wualabs.qtsurfer.engine.indicators.helpers.group.GroupDriver;",
    ).replace(
        "            n++;\n",
        "            n++;\n            GroupDriver.kline(indicators, 0, 1, 1, 1, 1, 1, 1);\n",
        1,
    )
    result = stepping.compile(text)
    assert not result.runnable
    assert any("GroupDriver is blocked" in d.message for d in result.sandbox_warnings)
    assert result.main_class is not None
    request = RunRequest(
        class_files=result.class_files,
        main_class=result.main_class,
        kind=DataType.KLINE,
        columns=kline_files,
        instrument=Instrument("BTC", "USDT"),
    )
    with pytest.raises(RunFailure) as caught:
        stepping.run(request)
    assert caught.value.kind is RunFailureKind.SANDBOX_VIOLATION


def test_series_too_long_for_the_cache_are_stepped_and_a_run_takes_at_most_its_budget(
    stepping: EngineHost, tmp_path: Path
) -> None:
    """With a 1 MiB cache, a series of 60,000 values (469 KiB) may be kept, one to a run (a run
    holds at most half the budget), and one of 70,000 (547 KiB, above half the cache) is not
    computed ahead at all; either way the signals are the stepping host's."""
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256, series_cache_mb=1)) as small:
        for rows, taken in ((60_000, 1), (70_000, 0)):
            files = write_columns(tmp_path / str(rows), DataType.KLINE, bars(rows))
            stepped = _runs(stepping, FIELDS, DataType.KLINE, files, VECTORS[:2])
            replayed = _runs(small, FIELDS, DataType.KLINE, files, VECTORS[:2])
            _assert_same(stepped, replayed)
            assert {r.precomputed_indicators for r in replayed} == {taken}


# Events fed by hand through the public updateIndicators: series cover one event a row, so the
# group's indicators must step from the first such event on (and a group fed before its first
# row takes no series at all).
_HAND = (
    _HEADER
    + """
import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.strategy.AbstractRTIndicator;
"""
)

_EMIT = """
    class L extends AbstractWindowListener {
        L(AbstractStrategy s, InstrumentGroupRTIndicator i) {
            super(s, i);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            FEED
            emitBuy(indicators.getValue("s"));
        }
    }
}
"""

FED_BEFORE_THE_FIRST_ROW = (
    _HAND
    + """
public class FedFirst extends AbstractKlineStrategy {"""
    + _PROPS
    + """
    @Override
    public boolean acceptInstrument(Instrument instrument) {
        updateIndicators(instrument, new Kline(instrument, 0L, 999L, 1.0, 1.0, 1.0, 1.0, 1.0));
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator ind) {
        ind.sma("s", a).window("s", WindowTime.s1, new L(this, ind));
    }
"""
    + _EMIT.replace("FEED", "")
)

FED_FROM_A_WINDOW = (
    _HAND
    + """
public class FedFromWindow extends AbstractKlineStrategy {"""
    + _PROPS
    + """
    private int n;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator ind) {
        ind.sma("s", a).ema("e", b).window("s", WindowTime.s1, new L(this, ind));
    }
"""
    + _EMIT.replace(
        "FEED",
        """if (++n == 100) {
                updateIndicators(instrument, new Kline(instrument, 0L, 999L, 1, 1, 1, 1, 1));
            }""",
    )
)

FED_FROM_AN_INDICATOR = (
    _HAND
    + """
public class FedFromIndicator extends AbstractTickerStrategy {"""
    + _PROPS
    + """
    private int n;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator ind) {
        Instrument inst = ind.getInstrument();
        ind.sma("s", a).add("hook", new AbstractRTIndicator() {
            @Override
            public double update(double x) {
                if (++n == 100) {
                    double nan = Double.NaN;
                    updateIndicators(inst, new Ticker(inst, 1, 1, 1, 1, nan, nan, nan, 1, nan, 1,
                            nan, nan, 0L));
                }
                return x;
            }

            @Override
            public double getValue() {
                return 0;
            }
        }).window("s", WindowTime.s1, new L(this, ind));
    }
"""
    + _EMIT.replace("FEED", "")
)


# Feeds ANOTHER instrument by hand from its window every 50th row, then emits in the same call: the
# strategy's event is that instrument's until the call returns, and its own again from the next row
# on (rows where each bar is its own window keep the event in a RowClock, LazyRows.ownWindows;
# the first such feed ends the stepless rows, after its own row).
FED_ANOTHER_INSTRUMENT = (
    _HAND
    + """
public class FedOther extends AbstractKlineStrategy {"""
    + _PROPS
    + """
    private int n;
    private final Instrument other = new Instrument("ETH", "USDT");

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator ind) {
        ind.addPrice().sma("s", a).window("s", WindowTime.s1, new L(this, ind));
    }
"""
    + _EMIT.replace(
        "FEED",
        """if (++n % 50 == 0) {
                update(new Kline(other, 0L, 999L, 1, 1, 1, 1, 1));
                emitInfo("after", indicators.getValue("price"));
            }
            if (n % 7 == 0) {
                emitSell(indicators.getValue("price"));
            }""",
    )
)


@pytest.mark.parametrize(
    ("text", "kind", "taken", "stepless"),
    [
        (FED_ANOTHER_INSTRUMENT, DataType.KLINE, 2, 50),
        (FED_BEFORE_THE_FIRST_ROW, DataType.KLINE, 0, 0),
        (FED_FROM_A_WINDOW, DataType.KLINE, 2, 100),
        (FED_FROM_AN_INDICATOR, DataType.TICKER, 1, 0),
    ],
    ids=[
        "another-instrument",
        "before-the-first-row",
        "from-a-window",
        "from-an-indicator-mid-step",
    ],
)
def test_events_fed_by_hand_end_the_replay(
    stepping: EngineHost,
    replaying: EngineHost,
    kline_files: dict[str, Path],
    tick_files: dict[str, Path],
    text: str,
    kind: DataType,
    taken: int,
    stepless: int,
) -> None:
    files = kline_files if kind is DataType.KLINE else tick_files
    stepped = _runs(stepping, text, kind, files, VECTORS[:2])
    replayed = _runs(replaying, text, kind, files, VECTORS[:2])
    _assert_same(stepped, replayed)
    assert {r.precomputed_indicators for r in replayed} == {taken}
    assert {r.stepless_events for r in replayed} == {stepless}


# Reaches its indicators mid-run, feeds its group by hand, then throws: whatever it leaves in the
# host (cached series, a half-replayed run) must not touch the next run.
_HAND_FED = "updateIndicators(instrument, new Kline(instrument, 0L, 999L, 1, 1, 1, 1, 1));\n"
ATTACKER = FED_FROM_A_WINDOW.replace("class FedFromWindow", "class Attacker").replace(
    _HAND_FED,
    _HAND_FED + '                indicators.getExisting("e").update(1e9);\n'
    "            }\n"
    "            if (n == 3_000) {\n"
    '                throw new IllegalStateException("attacker gives up");\n',
)


def test_an_attackers_run_leaves_the_next_run_on_the_same_host_unharmed(
    stepping: EngineHost, replaying: EngineHost, kline_files: dict[str, Path]
) -> None:
    """Attacker first, victim right after, on the same host and the same data: the victim's
    signals are those of a host that never saw the attacker and steps every indicator, and the
    victim still takes its series."""
    compiled = _compiled(replaying, ATTACKER)
    assert compiled.main_class is not None
    request = RunRequest(
        class_files=compiled.class_files,
        main_class=compiled.main_class,
        kind=DataType.KLINE,
        columns=kline_files,
        instrument=Instrument("BTC", "USDT"),
    )
    outcomes = replaying.run_many(request, VECTORS)
    assert all(isinstance(o, RunFailure) for o in outcomes), outcomes
    assert all("attacker gives up" in o.message for o in outcomes if isinstance(o, RunFailure))
    victim = _runs(replaying, FIELDS, DataType.KLINE, kline_files, VECTORS)
    _assert_same(_runs(stepping, FIELDS, DataType.KLINE, kline_files, VECTORS), victim)
    assert {r.precomputed_indicators for r in victim} == {8}
    assert {r.stepless_events for r in victim} == {6_000}


# A five-second window over bars one to three seconds apart: a window closes after the bar that
# reaches its end or, when no bar does, before the next bar. At window `at` the listener appends
# an indicator, at `at + 40` it reaches one (each ends the rows without a step, from either place).
LATE_WINDOWS = _windowed(
    "LateWindows",
    "AbstractKlineStrategy",
    setup="""\
        ind.addPrice().sma("fast", 4).sma("slow", 15).diff("spread", "fast", "slow")
            .window("spread", WindowTime.s5, new L(this, ind));""",
    body="""\
            if (n == at) {
                indicators.sma("late", "price", 7);
            }
            if (n == at + 40) {
                RTIndicator slow = indicators.getExisting("slow");
                emitSignal(createInfoSignal().set("slow", slow.getValue()));
            }
            if (n > at && n % 5 == 0) {
                emitSignal(createInfoSignal().set("late", indicators.getValue("late"))
                        .set("start", getPrevInstant().toEpochMilli()));
            }
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("price"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("fast"));
            }""",
    props="""\

    @StrategyProperty(name = "at", description = "the window that appends", defaultValue = "200")
    private int at = 200;
""",
)


# The same with a one-minute window: most rows close no window, and the loop writes a row's
# event time and frame only for those that do (and the last).
LATE_MINUTES = LATE_WINDOWS.replace("class LateWindows", "class LateMinutes").replace(
    "WindowTime.s5", "WindowTime.m1"
)


@pytest.fixture(scope="module")
def gapped_kline_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_columns(tmp_path_factory.mktemp("gapped"), DataType.KLINE, bars(6_000, gaps=True))


def _assert_same_leaving_at_own_windows(
    stepping: EngineHost,
    replaying: EngineHost,
    text: str,
    kind: DataType,
    files: dict[str, Path],
    vectors: list[dict[str, int]],
    all_rows: bool,
) -> None:
    """The stepping host's bits, and every row without a step (``all_rows``) or each vector
    leaving its stepless rows at its own window, somewhere inside the 6,000 rows."""
    replayed = _runs(replaying, text, kind, files, vectors)
    _assert_same(_runs(stepping, text, kind, files, vectors), replayed)
    stepless = [r.stepless_events for r in replayed]
    if all_rows:
        assert stepless == [6_000] * len(vectors)
    else:
        assert all(0 < n < 6_000 for n in stepless), stepless
        assert len(set(stepless)) == len(vectors)  # each vector left at its own window


@pytest.mark.parametrize(
    ("text", "vectors", "all_rows"),
    [
        (LATE_WINDOWS, [{"at": 190 + k} for k in range(8)], False),
        (LATE_WINDOWS, [{"at": 1_000_000}], True),
        (LATE_MINUTES, [{"at": 50 + k} for k in range(8)], False),
        (LATE_MINUTES, [{"at": 1_000_000}], True),
        (source("sma_cross_kline.java"), SMA_CROSS_VECTORS, True),
    ],
    ids=[
        "appended-then-reached",
        "never-touched",
        "minutes-appended-then-reached",
        "minutes-never-touched",
        "sma-cross",
    ],
)
def test_windows_closed_by_a_later_bar_give_the_same_bits(
    stepping: EngineHost,
    replaying: EngineHost,
    gapped_kline_files: dict[str, Path],
    text: str,
    vectors: list[dict[str, int]],
    all_rows: bool,
) -> None:
    """Over gapped bars, with a window closed after a bar or before the next one, and the group
    leaving its stepless rows from either (eight neighbouring windows): the signals, info and
    window starts of a host that steps every indicator."""
    _assert_same_leaving_at_own_windows(
        stepping, replaying, text, DataType.KLINE, gapped_kline_files, vectors, all_rows
    )


# One-second windows over one-second bars: every bar closes its own window, and the loop keeps the
# window's state and its listener's bounds in a clock (OwnWindowClock) instead of writing them
# around every call. The listener reads its instants every seventh window; at window `at` it acts
# (a close dispatched by hand, a second window registered, an event fed by hand), then reads them
# again. Every reader must see what a host that steps every indicator shows.
_LATE_ACTS = LATE_WINDOWS[
    LATE_WINDOWS.index("if (n == at) {") - 12 : LATE_WINDOWS.index("if (prev <= 0") - 12
]
OWN_WINDOWS = (
    LATE_WINDOWS.replace("class LateWindows", "class OwnWindows")
    .replace("WindowTime.s5", "WindowTime.s1")
    .replace(
        _LATE_ACTS,
        """\
            if (n % 7 == 0) {
                emitSignal(createInfoSignal().set("open", getPrevInstant().toEpochMilli())
                        .set("close", getCurrInstant().toEpochMilli()));
            }
            if (n == at) {
                ACTION
                emitSignal(createInfoSignal().set("openAfter", getPrevInstant().toEpochMilli())
                        .set("closeAfter", getCurrInstant().toEpochMilli()));
            }
""",
    )
)
_SECOND_WINDOW = """\
indicators.window("fast", WindowTime.s1,
                        new AbstractWindowListener(strategy, indicators) {
                    private int k;

                    @Override
                    public void onChange(StateStore s, double p, double a) {
                        if (++k % 5 == 0) {
                            emitSignal(createInfoSignal()
                                    .set("second", getCurrInstant().toEpochMilli())
                                    .set("first", L.this.getPrevInstant().toEpochMilli())
                                    .set("fast", a));
                        }
                    }
                });"""
OWN_WINDOW_ACTIONS = {
    "instants-only": OWN_WINDOWS.replace("ACTION", ""),
    "dispatched-by-hand": OWN_WINDOWS.replace(
        "ACTION", "dispatchWindowClose(store, 5_000L, 6_000L, prev, actual);"
    ),
    "window-added": OWN_WINDOWS.replace("ACTION", _SECOND_WINDOW),
    "fed-by-hand": _HAND
    + OWN_WINDOWS.removeprefix(_HEADER).replace(
        "ACTION", "updateIndicators(instrument, new Kline(instrument, 0L, 999L, 1, 1, 1, 1, 1));"
    ),
}


@pytest.mark.parametrize("action", list(OWN_WINDOW_ACTIONS))
@pytest.mark.parametrize("gaps", [False, True], ids=["every-second", "gapped"])
def test_bars_closing_their_own_window_show_the_general_paths_window_bounds(
    stepping: EngineHost,
    replaying: EngineHost,
    kline_files: dict[str, Path],
    gapped_kline_files: dict[str, Path],
    action: str,
    gaps: bool,
) -> None:
    """The listener's instants at every seventh window and after its action at window 190-193
    (four vectors; a fifth never acts), the second window's, the signals: the stepping host's
    bits. A listener that only reads its instants keeps every row without a step."""
    files = gapped_kline_files if gaps else kline_files
    text = OWN_WINDOW_ACTIONS[action]
    vectors = [{"at": 190 + k} for k in range(4)] + [{"at": 1_000_000}]
    replayed = _runs(replaying, text, DataType.KLINE, files, vectors)
    _assert_same(_runs(stepping, text, DataType.KLINE, files, vectors), replayed)
    opens = [v["open"] for v in replayed[0].info if "open" in v]
    assert len(opens) > 100  # the instants were read all along
    if action == "instants-only":
        assert [r.stepless_events for r in replayed] == [6_000] * len(vectors)
    if action == "window-added":
        assert any("second" in v for v in replayed[0].info)


# LATE_WINDOWS over ticks (a missing last price now and then): a ticker's window closes only
# before a later tick.
LATE_TICKS = LATE_WINDOWS.replace(
    "class LateWindows extends AbstractKlineStrategy",
    "class LateTicks extends AbstractTickerStrategy",
)


LATE_TICK_MINUTES = LATE_TICKS.replace("class LateTicks", "class LateTickMinutes").replace(
    "WindowTime.s5", "WindowTime.m1"
)


@pytest.mark.parametrize(
    ("text", "vectors", "all_rows"),
    [
        (LATE_TICKS, [{"at": 190 + k} for k in range(8)], False),
        (LATE_TICKS, [{"at": 1_000_000}], True),
        (LATE_TICK_MINUTES, [{"at": 20 + k} for k in range(8)], False),
        (LATE_TICK_MINUTES, [{"at": 1_000_000}], True),
    ],
    ids=[
        "appended-then-reached",
        "never-touched",
        "minutes-appended-then-reached",
        "minutes-never-touched",
    ],
)
def test_ticker_windows_give_the_same_bits(
    stepping: EngineHost,
    replaying: EngineHost,
    tick_files: dict[str, Path],
    text: str,
    vectors: list[dict[str, int]],
    all_rows: bool,
) -> None:
    _assert_same_leaving_at_own_windows(
        stepping, replaying, text, DataType.TICKER, tick_files, vectors, all_rows
    )


# A listener that throws at its 700th window, while no node steps: the run fails with the rows
# before that row delivered, as on a host that steps every indicator.
_THROW = """\
            n++;
            if (n == 700) {
                throw new IllegalStateException("window 700");
            }
"""
THROWS_LATE = LATE_WINDOWS.replace("class LateWindows", "class ThrowsLate").replace(
    "            n++;\n", _THROW, 1
)


@pytest.mark.parametrize("case", ["klines", "ticks", "own-windows"])
def test_a_listener_failing_without_steps_fails_at_the_same_row(
    stepping: EngineHost,
    replaying: EngineHost,
    kline_files: dict[str, Path],
    gapped_kline_files: dict[str, Path],
    tick_files: dict[str, Path],
    case: str,
) -> None:
    """Five-second windows over gapped bars and ticks, and one-second windows over a bar every
    second (each bar its own window: the loop with the window's state in a clock)."""
    text = THROWS_LATE
    files = gapped_kline_files
    kind = DataType.TICKER if case == "ticks" else DataType.KLINE
    if case == "own-windows":
        text = THROWS_LATE.replace("WindowTime.s5", "WindowTime.s1")
        files = kline_files
    if kind is DataType.TICKER:
        text = THROWS_LATE.replace(
            "extends AbstractKlineStrategy", "extends AbstractTickerStrategy"
        )
        files = tick_files
    failures = []
    for host in (stepping, replaying):
        compiled = _compiled(host, text)
        assert compiled.main_class is not None
        request = RunRequest(
            class_files=compiled.class_files,
            main_class=compiled.main_class,
            kind=kind,
            columns=files,
            instrument=Instrument("BTC", "USDT"),
        )
        (outcome,) = host.run_many(request, [{"at": 1_000_000}])
        assert isinstance(outcome, RunFailure), outcome
        failures.append(outcome)
    stepped, replayed = failures
    assert "window 700" in replayed.message
    assert replayed.kind is stepped.kind
    assert 0 < replayed.details["events"] == stepped.details["events"] < 6_000


# Series arrays used again (SeriesCache: a dropped series is computed into rather than a new array
# allocated). With a 1 MiB cache and 20,000 bars a series is 160 KB: six fit, three to a run.
SMALL_CACHE_ROWS = 20_000


@pytest.fixture(scope="module")
def small_cache() -> Iterator[EngineHost]:
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256, series_cache_mb=1)) as host:
        yield host


@pytest.fixture(scope="module")
def small_cache_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_columns(
        tmp_path_factory.mktemp("small"), DataType.KLINE, bars(SMALL_CACHE_ROWS, gaps=True)
    )


def _series_counts(host: EngineHost) -> dict[str, int]:
    counts: dict[str, int] = host.ping()["series_cache"]
    return counts


def test_requests_with_new_parameters_compute_into_dropped_series_and_keep_their_bits(
    stepping: EngineHost, small_cache: EngineHost, small_cache_files: dict[str, Path]
) -> None:
    """One vector a request, each with SMAs no earlier request asked for: once the cache is
    full it drops the oldest series and the next one is computed into its array; every run
    still gives the stepping host's signals."""
    vectors = [{"fast": 3 + k, "slow": 12 + 2 * k} for k in range(6)]
    text = source("sma_cross_kline.java")
    before = _series_counts(small_cache)
    for vector in vectors:
        replayed = _runs(small_cache, text, DataType.KLINE, small_cache_files, [vector])
        _assert_same(_runs(stepping, text, DataType.KLINE, small_cache_files, [vector]), replayed)
        assert replayed[0].precomputed_indicators == 3
    after = _series_counts(small_cache)
    # The price and two SMAs a request; six series fit. The third request's second SMA drops
    # the first one's, and from the fourth on each SMA is computed into an array dropped before.
    assert after["misses"] - before["misses"] == 1 + 2 * len(vectors)
    assert after["reused"] - before["reused"] == 2 * (len(vectors) - 3)


# The first vector's group, kept in a static field (one loader serves a request's vectors while
# its classes hold static state), is read by every later vector of the same request while their
# series push the first one's out of the cache.
STASH = _windowed(
    "Stash",
    "AbstractKlineStrategy",
    setup="""\
        if (first == null) {
            first = ind;
        }
        ind.addPrice().sma("fast", a).sma("slow", b).diff("spread", "fast", "slow")
            .window("spread", WindowTime.s1, new L(this, ind));""",
    body="""\
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("price"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("price"));
            }
            if (first != indicators && n % 500 == 0) {
                emitSignal(createInfoSignal().set("fast0", first.getValue("fast"))
                        .set("slow0", first.getValue("slow")));
            }""",
    props=_PROPS + "\n    static InstrumentGroupRTIndicator first;\n",
)


def test_a_requests_own_dropped_series_are_not_computed_into_while_it_runs(
    stepping: EngineHost, small_cache_files: dict[str, Path]
) -> None:
    """Eight vectors of one request on a new host, each with new SMAs: the later ones drop the
    first one's series from the cache while its group is still read (through a static field).
    What it reads is what the stepping host's group holds (a run that ended took its values out
    of its series), and nothing the request was handed is computed into before the request
    ends: only the next request computes into what this one dropped."""
    vectors = [{"a": 2 + k, "b": 30 + 3 * k} for k in range(8)]
    config = HostConfig(jar=locate_engine_jar(), heap_mb=256, series_cache_mb=1)
    with EngineHost(config) as fresh:
        replayed = _runs(fresh, STASH, DataType.KLINE, small_cache_files, vectors)
        during = _series_counts(fresh)
        again = _runs(fresh, STASH, DataType.KLINE, small_cache_files, vectors[:1])
        after = _series_counts(fresh)
    stepped = _runs(stepping, STASH, DataType.KLINE, small_cache_files, vectors)
    _assert_same(stepped, replayed)
    _assert_same(stepped[:1], again)
    assert all(len(r.info) >= 30 for r in replayed[1:])
    assert {r.precomputed_indicators for r in replayed} == {3}
    assert during["misses"] >= 2 * len(vectors)
    assert during["reused"] == 0
    assert after["reused"] >= 2


def _shifted(columns: dict[str, np.ndarray], by_ms: np.ndarray) -> dict[str, np.ndarray]:
    out = dict(columns)
    out["ts"] = columns["ts"] + by_ms
    out["closeTs"] = columns["closeTs"] + by_ms
    return out


# The SMA crossover, whose listener also reports the bounds of every 50th window it closes.
BOUNDS = _windowed(
    "Bounds",
    "AbstractKlineStrategy",
    setup="""\
        ind.addPrice().sma("s", a).sma("t", b).diff("d", "s", "t")
            .window("d", WindowTime.s1, new L(this, ind));""",
    body="""\
            if (prev <= 0 && actual > 0) {
                emitBuy(indicators.getValue("price"));
            } else if (prev >= 0 && actual < 0) {
                emitSell(indicators.getValue("price"));
            }
            if (n % 50 == 0) {
                emitSignal(createInfoSignal().set("open", getPrevInstant().toEpochMilli())
                        .set("close", getCurrInstant().toEpochMilli()));
            }""",
)


@pytest.mark.parametrize(
    "shift",
    ["aligned", "gaps", "a-quarter-second-late", "one-bar-late"],
)
def test_bars_on_or_off_the_windows_grid_give_the_stepping_hosts_bits(
    stepping: EngineHost, replaying: EngineHost, tmp_path: Path, shift: str
) -> None:
    """The replaying host arms a window at the row's own open time when every open is on the
    period's grid (``AlignedStarts``), else by the division: bars on the grid, with gaps, a
    quarter second off it (each bar then spans two windows), and one bar off it among thousands
    give the stepping host's signals and window bounds bit for bit either way."""
    columns = bars(3_000, gaps=shift == "gaps")
    if shift == "a-quarter-second-late":
        columns = _shifted(columns, np.full(3_000, 250, dtype=np.int64))
    elif shift == "one-bar-late":
        late = np.zeros(3_000, dtype=np.int64)
        late[1_700:] = 500  # from one bar on, every open half a second off the grid
        columns = _shifted(columns, late)
    files = write_columns(tmp_path, DataType.KLINE, columns)
    stepped = _runs(stepping, BOUNDS, DataType.KLINE, files, VECTORS)
    replayed = _runs(replaying, BOUNDS, DataType.KLINE, files, VECTORS)
    _assert_same(stepped, replayed)
    assert {r.stepless_events for r in replayed} == {3_000}  # all of it on the replaying path
    opens = [int(i["open"]) for i in stepped[0].info if "open" in i]
    assert len(opens) == 60  # every 50th of 3,000 closes
    assert all(o % 1_000 == 0 for o in opens)  # windows start on the period's grid


# BOUNDS reporting the bounds of every window it closes.
EVERY_BOUND = BOUNDS.replace("class Bounds", "class EveryBound").replace("n % 50 == 0", "n > 0")


def _lengthened(columns: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    """``columns`` with the bars at ``rows`` (each followed by a gap) two seconds long."""
    out = dict(columns)
    out["closeTs"] = columns["closeTs"].copy()
    out["closeTs"][rows] += 1_000
    return out


@pytest.mark.parametrize(
    ("long_bars", "start"),
    [("three", None), ("three", 0), ("thousands", None), ("thousands", 1_100)],
    ids=["three-whole", "three-part", "thousands-whole", "thousands-part-past-the-kept-ones"],
)
def test_bars_longer_than_their_window_end_the_own_window_rows_where_they_are(
    stepping: EngineHost,
    replaying: EngineHost,
    tmp_path: Path,
    long_bars: str,
    start: int | None,
) -> None:
    """One-second windows over one-second bars, some of them two seconds long (a window that
    closes inside the bar): the replaying host finds, once per columns, which rows are not
    their own window (``OwnWindowRows``), and must leave its own-window loop exactly there,
    whether the run starts before them, between them, or after more of them than it keeps
    (1,024; it looks further itself), as a host that steps every indicator shows in its
    signals and window bounds. A part starts at a one-second bar after the ``start``-th long one
    and takes up to 3,000 rows."""
    columns = bars(6_000, gaps=True)
    followed_by_gap = np.flatnonzero(np.diff(columns["ts"]) >= 2_000)
    every_other = followed_by_gap[::2]  # a one-second bar between two long ones, now and then
    chosen = every_other[[200, 700, 1_500]] if long_bars == "three" else every_other
    assert long_bars == "three" or chosen.size > 1_024
    rows = None
    if start is not None:
        long_rows = set(chosen.tolist())
        first = next(r for r in range(chosen[start] + 1, 6_000) if r not in long_rows)
        rows = (first, min(first + 3_000, 6_000))
    files = write_columns(tmp_path, DataType.KLINE, _lengthened(columns, chosen))
    stepped = _runs(stepping, EVERY_BOUND, DataType.KLINE, files, VECTORS, rows=rows)
    replayed = _runs(replaying, EVERY_BOUND, DataType.KLINE, files, VECTORS, rows=rows)
    _assert_same(stepped, replayed)
    taken = (rows[1] - rows[0]) if rows else 6_000
    assert {r.stepless_events for r in replayed} == {taken}
