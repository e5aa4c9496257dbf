"""Generate the one Java class a QTScript file stands for.

Layout of the class, top to bottom: one ``@StrategyProperty`` field per ``param``; the constructor
holding ``init``; ``acceptInstrument``; ``setupIndicators`` (automatic value indicators, then each
setup line with the windows it registers); the listener inner classes; the ``onCommand`` body
(with ``onCommand`` the class implements ``CommandRequestHandler``, whose ``onCommand`` calls it).

Body text is copied verbatim. A body line is emitted as the QTScript line with everything outside
the body blanked to spaces (tabs kept), so the Java line has the body at the very same columns and
javac's tab expansion agrees too. The scaffolding names engine types by their fully-qualified names
so that nothing a body imports or declares can make it ambiguous; bodies get wildcard imports of
every allowed package. The output depends only on the input text (no time, no hashes, no sets).
"""

from __future__ import annotations

from dataclasses import dataclass

from backtestd.domain.marketdata import DataType

from .linemap import JavaWriter, LineMap, LineOrigin
from .literals import java_string
from .nodes import (
    Block,
    InstrumentList,
    InstrumentNative,
    PairEntry,
    Period,
    Pos,
    Program,
    QtsParam,
    RegexEntry,
)
from .source import SourceText
from .windows import Listener, WindowPlan

ENGINE = "com.wualabs.qtsurfer.engine"
STRATEGY_PROPERTY = f"{ENGINE}.strategy.StrategyProperty"
WINDOW_LISTENER = f"{ENGINE}.strategy.AbstractWindowListener"
INDICATOR_GROUP = f"{ENGINE}.indicators.helpers.group.InstrumentGroupRTIndicator"
STATE_STORE = f"{ENGINE}.core.state.StateStore"
COMMAND_HANDLER = f"{ENGINE}.strategy.CommandRequestHandler"
COMMAND_REQUEST = f"{ENGINE}.strategy.CommandRequest"
INSTRUMENT = f"{ENGINE}.core.instrument.Instrument"
WINDOW_TIME = f"{ENGINE}.indicators.helpers.WindowTimeRTIndicator.WindowTime"
PATTERN = "java.util.regex.Pattern"

# Every package a strategy may use, imported so bodies and setup arguments need no
# imports: the engine packages that hold public API classes (the documented ones and
# the indicator categories of the 1.1.1 changelog, as the engine in jvm/ lays them out) and the
# allowed JDK packages. Only existing packages may be listed: javac rejects `import p.*;` for a
# package it cannot find.
IMPORTS: tuple[str, ...] = (
    f"{ENGINE}.*",
    f"{ENGINE}.core.*",
    f"{ENGINE}.core.instrument.*",
    f"{ENGINE}.core.state.*",
    f"{ENGINE}.indicators.averages.*",
    f"{ENGINE}.indicators.averages.pro.*",
    f"{ENGINE}.indicators.bollinger.*",
    f"{ENGINE}.indicators.core.*",
    f"{ENGINE}.indicators.distance.*",
    f"{ENGINE}.indicators.helpers.*",
    f"{ENGINE}.indicators.helpers.WindowTimeRTIndicator.WindowTime",
    f"{ENGINE}.indicators.helpers.group.*",
    f"{ENGINE}.indicators.momentum.*",
    f"{ENGINE}.indicators.momentum.pro.*",
    f"{ENGINE}.indicators.statistics.*",
    f"{ENGINE}.indicators.statistics.pro.*",
    f"{ENGINE}.indicators.trend.pro.*",
    f"{ENGINE}.indicators.volatility.pro.*",
    f"{ENGINE}.indicators.volume.pro.*",
    f"{ENGINE}.strategy.*",
    f"{ENGINE}.strategy.execution.*",
    "java.math.*",
    "java.text.*",
    "java.time.*",
    "java.time.format.*",
    "java.time.temporal.*",
    "java.util.*",
    "java.util.concurrent.atomic.*",
    "java.util.function.*",
    "java.util.regex.*",
    "java.util.stream.*",
)


@dataclass(frozen=True)
class SourceProfile:
    """What differs between ticker, kline and funding strategies."""

    base_class: str
    registrations: tuple[str, ...]  # statements run first in setupIndicators
    values: tuple[str, ...]  # value variables declared in every window body


_VALUE_SOURCE = f"{ENGINE}.strategy.TickerValueSource"
PROFILES: dict[DataType, SourceProfile] = {
    DataType.TICKER: SourceProfile(
        f"{ENGINE}.strategy.AbstractTickerStrategy", ("indicators.addPrice();",), ("price",)
    ),
    DataType.KLINE: SourceProfile(
        f"{ENGINE}.strategy.AbstractKlineStrategy",
        (
            "indicators.addPrice();",
            f'indicators.add("open", {_VALUE_SOURCE}.Open);',
            f'indicators.add("high", {_VALUE_SOURCE}.High);',
            f'indicators.add("low", {_VALUE_SOURCE}.Low);',
            f'indicators.add("close", {_VALUE_SOURCE}.Close);',
            f'indicators.add("volume", {_VALUE_SOURCE}.Volume);',
        ),
        ("price", "open", "high", "low", "close", "volume"),
    ),
    DataType.FUNDING: SourceProfile(
        f"{ENGINE}.strategy.AbstractFundingRateStrategy", ("indicators.addRate();",), ("rate",)
    ),
}

_I1, _I2, _I3 = " " * 4, " " * 8, " " * 12


def generate_java(
    program: Program, src: SourceText, class_name: str, plan: WindowPlan
) -> tuple[str, LineMap]:
    """The Java source of ``program`` (which must be free of errors) and its line map."""
    assert program.header is not None
    return _Generator(program, src, class_name, plan).run()


class _Generator:
    def __init__(self, program: Program, src: SourceText, class_name: str, plan: WindowPlan):
        assert program.header is not None
        self.program = program
        self.header = program.header
        self.src = src
        self.class_name = class_name
        self.plan = plan
        self.profile = PROFILES[program.header.source]
        self.out = JavaWriter()

    def at(self, pos: Pos) -> LineOrigin:
        return LineOrigin(pos.line, pos.column)

    def run(self) -> tuple[str, LineMap]:
        out = self.out
        out.line(
            f"// Generated by backtestd from the QTScript strategy {java_string(self.header.name)}."
        )
        out.line("// Do not edit: change the QTScript source and compile it again.")
        for name in IMPORTS:
            out.line(f"import {name};")
        out.line()
        head = self.at(self.header.pos)
        handles = f" implements {COMMAND_HANDLER}" if self.program.on_command is not None else ""
        out.line(
            f"public class {self.class_name} extends {self.profile.base_class}{handles} {{", head
        )
        self.params()
        self.constructor()
        self.instruments()
        self.setup_indicators()
        for listener in self.plan.listeners:
            self.listener(listener)
        self.on_command()
        out.line("}", head)
        return out.build()

    # -- members --------------------------------------------------------------------------

    def params(self) -> None:
        for p in self.program.params:
            origin = LineOrigin(p.line, p.column)
            self.out.line("", origin)
            self.out.line(
                f"{_I1}@{STRATEGY_PROPERTY}(name = {java_string(p.name)}, "
                f"description = {java_string(p.description or '')}, "
                f"defaultValue = {java_string(p.default)})",
                origin,
            )
            self.out.line(f"{_I1}public {p.java_type} {p.name} = {_java_value(p)};", origin)

    def constructor(self) -> None:
        init = self.program.init
        if init is None:
            return
        origin = self.at(init.pos)
        self.out.line("", origin)
        self.out.line(f"{_I1}public {self.class_name}() {{", origin)
        self.body(init.block)
        self.out.line(f"{_I1}}}", self.at(self.src_pos(init.block.close)))

    def instruments(self) -> None:
        node = self.program.instruments
        if node is None or (isinstance(node, InstrumentList) and not node.entries):
            return
        origin = self.at(node.pos)
        if isinstance(node, InstrumentList):
            self.patterns(node)
        self.out.line("", origin)
        self.out.line(f"{_I1}@Override", origin)
        self.out.line(f"{_I1}public boolean acceptInstrument({INSTRUMENT} instrument) {{", origin)
        if isinstance(node, InstrumentNative):
            self.body(node.block)
            self.out.line(f"{_I1}}}", self.at(self.src_pos(node.block.close)))
            return
        self.out.line(f"{_I2}return super.acceptInstrument(instrument) && (", origin)
        regex_index = 0
        for k, entry in enumerate(node.entries):
            lead = _I3 if k == 0 else f"{_I3}|| "
            if isinstance(entry, RegexEntry):
                regex_index += 1
                test = f"qts$instruments{regex_index}.matcher(instrument.symbol()).matches()"
            else:
                test = _pair_test(entry)
            self.out.line(lead + test, self.at(entry.pos))
        self.out.line(f"{_I2});", origin)
        self.out.line(f"{_I1}}}", origin)

    def patterns(self, node: InstrumentList) -> None:
        regexes = [e for e in node.entries if isinstance(e, RegexEntry)]
        for k, entry in enumerate(regexes, start=1):
            self.out.line(
                f"{_I1}private static final {PATTERN} qts$instruments{k} = "
                f"{PATTERN}.compile({java_string(entry.pattern)});",
                self.at(entry.pos),
            )

    def setup_indicators(self) -> None:
        setup = self.program.setup
        origin = self.at(setup.pos if setup is not None else self.header.pos)
        self.out.line("", origin)
        self.out.line(f"{_I1}@Override", origin)
        self.out.line(
            f"{_I1}protected void setupIndicators({INDICATOR_GROUP} indicators) {{", origin
        )
        for statement in self.profile.registrations:
            self.out.line(_I2 + statement, origin)
        for step in self.plan.steps:
            if step.call is not None:
                call = step.call
                self.out.copied(f"{_I2}indicators.", call.text, ";", call.pos.line, call.pos.column)
            for att in step.attachments:
                listener = att.listener
                self.out.line(
                    f"{_I2}indicators.window({att.name.java}, {_period(listener.period)}, "
                    f"new {listener.class_name}(this, indicators, {att.name.java}));",
                    self.at(att.anchor),
                )
        self.out.line(f"{_I1}}}", origin)

    def listener(self, li: Listener) -> None:
        origin = self.at(li.anchor)
        out = self.out
        out.line("", origin)
        out.line(f"{_I1}final class {li.class_name} extends {WINDOW_LISTENER} {{", origin)
        out.line(f"{_I2}private final String $indicator;", origin)
        out.line("", origin)
        out.line(
            f"{_I2}{li.class_name}({self.class_name} strategy, {INDICATOR_GROUP} indicators, "
            "String $indicator) {",
            origin,
        )
        out.line(f"{_I3}super(strategy, indicators);", origin)
        out.line(f"{_I3}this.$indicator = $indicator;", origin)
        out.line(f"{_I2}}}", origin)
        out.line("", origin)
        out.line(f"{_I2}@Override", origin)
        out.line(
            f"{_I2}public void onChange({STATE_STORE} store, double prev, double actual) {{", origin
        )
        for name in self.profile.values:
            out.line(f"{_I3}double {name} = indicators.getValue({java_string(name)});", origin)
        self.body(li.block)
        out.line(f"{_I2}}}", self.at(self.src_pos(li.block.close)))
        out.line("", origin)
        out.line(f"{_I2}private double value(String name) {{", origin)
        out.line(f"{_I3}return indicators.getValue(name);", origin)
        out.line(f"{_I2}}}", origin)
        out.line(f"{_I1}}}", origin)

    def on_command(self) -> None:
        node = self.program.on_command
        if node is None:
            return
        origin = self.at(node.pos)
        out = self.out
        out.line("", origin)
        out.line(
            f"{_I1}// onCommand {{ }}: a live run's commands (CommandRequestHandler); "
            "backtests never call it.",
            origin,
        )
        out.line(f"{_I1}@Override", origin)
        out.line(f"{_I1}public void onCommand({COMMAND_REQUEST} qts$request) {{", origin)
        out.line(f"{_I2}qts$onCommand(qts$request.getCommand());", origin)
        out.line(f"{_I1}}}", origin)
        out.line("", origin)
        out.line(f"{_I1}void qts$onCommand(String $command) {{", origin)
        self.body(node.block)
        out.line(f"{_I1}}}", self.at(self.src_pos(node.block.close)))

    # -- bodies ---------------------------------------------------------------------------

    def src_pos(self, offset: int) -> Pos:
        line, column = self.src.loc(offset)
        return Pos(line, column)

    def body(self, block: Block) -> None:
        """Copy the text between the braces, line by line, at its original columns."""
        open_line, open_col = self.src.loc(block.open)
        close_line, close_col = self.src.loc(block.close)
        for line in range(open_line, close_line + 1):
            full = self.src.line_text(line)
            start = open_col if line == open_line else 0
            end = close_col - 1 if line == close_line else len(full)
            segment = full[start:end]
            if line in (open_line, close_line) and not segment.strip():
                continue
            prefix = "".join(ch if ch == "\t" else " " for ch in full[:start])
            self.out.copied(prefix, segment, "", line, start + 1)


def _java_value(param: QtsParam) -> str:
    if param.java_type == "String":
        return java_string(param.default)
    return param.literal


def _pair_test(entry: PairEntry) -> str:
    tests = []
    if entry.base is not None:
        tests.append(f"{java_string(entry.base)}.equalsIgnoreCase(instrument.base())")
    if entry.quote is not None:
        tests.append(f"{java_string(entry.quote)}.equalsIgnoreCase(instrument.quote())")
    if not tests:
        return "true"
    return "(" + " && ".join(tests) + ")"


def _period(period: Period | None) -> str:
    if period is None:
        return f"{WINDOW_TIME}.s1"
    if period.window_time is not None:
        return f"{WINDOW_TIME}.{period.window_time}"
    return f"java.time.Duration.ofSeconds({period.seconds})"
