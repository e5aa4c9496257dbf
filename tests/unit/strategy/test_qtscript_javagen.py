"""The Java class generated for each QTScript construct (spec §17.13)."""

from __future__ import annotations

import pytest

from backtestd.domain.marketdata import DataType
from backtestd.strategy.qtscript import QtsParam, compile_qtscript
from backtestd.strategy.qtscript.naming import derive_class_name

ENGINE = "com.wualabs.qtsurfer.engine"
WT = f"{ENGINE}.indicators.helpers.WindowTimeRTIndicator.WindowTime"
LAST = "indicators.lastRegisteredName()"


def java_lines(source: str) -> list[str]:
    return [line.strip() for line in compile_qtscript(source).java_source.splitlines()]


# -- class name -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("RSI reversion", "RSIreversion"),
        ("Reversion", "Reversion"),
        ("EMA cross (v2) - 9/21", "EMAcrossv2921"),
        ("snake_case ok", "snake_caseok"),
        ("price$ dollars", "pricedollars"),
        ("Año nuevo", "Aonuevo"),
        ("3 bars", "_3bars"),
        ("class", "_class"),
        ("var", "_var"),
        ("!!!", "QtsStrategy"),
        ("String", "StringStrategy"),
        ("Ticker", "TickerStrategy"),
    ],
)
def test_derive_class_name(title: str, expected: str) -> None:
    assert derive_class_name(title) == expected


def test_class_name_avoids_generated_inner_class_names() -> None:
    assert derive_class_name("InlineWindow1", frozenset({"InlineWindow1"})) == (
        "InlineWindow1Strategy"
    )
    gen = compile_qtscript("strategy InlineWindow1\nsetup:\n  ema(3) window { }\n")
    assert gen.class_name == "InlineWindow1Strategy"


@pytest.mark.parametrize(
    ("header", "class_name", "base", "kind"),
    [
        ('strategy "RSI reversion"', "RSIreversion", "AbstractTickerStrategy", DataType.TICKER),
        ("strategy Bars kline", "Bars", "AbstractKlineStrategy", DataType.KLINE),
        ("strategy Rates funding", "Rates", "AbstractFundingRateStrategy", DataType.FUNDING),
        ("strategy T ticker", "T", "AbstractTickerStrategy", DataType.TICKER),
    ],
)
def test_header_chooses_class_name_and_base(
    header: str, class_name: str, base: str, kind: DataType
) -> None:
    gen = compile_qtscript(header + "\n")
    assert (gen.class_name, gen.package, gen.source_kind) == (class_name, None, kind)
    assert gen.qualified_name == class_name
    assert f"public class {class_name} extends {ENGINE}.strategy.{base} {{" in gen.java_source


# -- params ---------------------------------------------------------------------------------


def test_params_become_strategy_property_fields_with_typed_defaults() -> None:
    gen = compile_qtscript(
        'strategy X\nparam rsiLow = 30 "Oversold"\nparam ratio = 0.5\nparam on = true\n'
        'param tag = "a\\"b" "Tag \\u00e9"\nparam neg = -2\n'
    )
    lines = [line.strip() for line in gen.java_source.splitlines()]
    prop = f"@{ENGINE}.strategy.StrategyProperty"
    assert f'{prop}(name = "rsiLow", description = "Oversold", defaultValue = "30")' in lines
    assert "public int rsiLow = 30;" in lines
    assert f'{prop}(name = "ratio", description = "", defaultValue = "0.5")' in lines
    assert "public double ratio = 0.5;" in lines
    assert "public boolean on = true;" in lines
    assert f'{prop}(name = "tag", description = "Tag \\u00e9", defaultValue = "a\\"b")' in lines
    assert 'public String tag = "a\\"b";' in lines
    assert "public int neg = -2;" in lines
    assert gen.params == [
        QtsParam("rsiLow", "int", "30", "30", "Oversold", 2, 7),
        QtsParam("ratio", "double", "0.5", "0.5", None, 3, 7),
        QtsParam("on", "boolean", "true", "true", None, 4, 7),
        QtsParam("tag", "String", 'a"b', '"a\\"b"', "Tag é", 5, 7),
        QtsParam("neg", "int", "-2", "-2", None, 6, 7),
    ]


# -- init and instruments -------------------------------------------------------------------


def test_init_becomes_the_constructor_body() -> None:
    source = "strategy Conf\ninit {\n  setPercentGain(0.5);\n}\n"
    lines = compile_qtscript(source).java_source.splitlines()
    start = lines.index("    public Conf() {")
    assert lines[start + 1] == "  setPercentGain(0.5);"
    assert lines[start + 2] == "    }"


def test_no_constructor_without_init() -> None:
    assert "public X()" not in compile_qtscript("strategy X\n").java_source


def test_instrument_list_narrows_the_default_filter() -> None:
    lines = java_lines('strategy X\ninstruments btc/usdt, eth/*, */usdt, ~"^SOL/.*$", */*\n')
    assert (
        "private static final java.util.regex.Pattern qts$instruments1 = "
        'java.util.regex.Pattern.compile("^SOL/.*$");' in lines
    )
    i = lines.index(
        f"public boolean acceptInstrument({ENGINE}.core.instrument.Instrument instrument) {{"
    )
    assert lines[i + 1 : i + 8] == [
        "return super.acceptInstrument(instrument) && (",
        '("BTC".equalsIgnoreCase(instrument.base()) '
        '&& "USDT".equalsIgnoreCase(instrument.quote()))',
        '|| ("ETH".equalsIgnoreCase(instrument.base()))',
        '|| ("USDT".equalsIgnoreCase(instrument.quote()))',
        "|| qts$instruments1.matcher(instrument.symbol()).matches()",
        "|| true",
        ");",
    ]


def test_regex_is_passed_to_java_with_backslashes_escaped() -> None:
    source = compile_qtscript('strategy X\ninstruments ~"^\\w+/USDT\\"$"\n').java_source
    assert 'Pattern.compile("^\\\\w+/USDT\\\\\\"$");' in source


def test_instruments_star_generates_no_override() -> None:
    assert "acceptInstrument" not in compile_qtscript("strategy X\ninstruments *\n").java_source


def test_native_instruments_is_the_method_body() -> None:
    lines = compile_qtscript(
        "strategy X\ninstruments {\n  return super.acceptInstrument(instrument);\n}\n"
    ).java_source.splitlines()
    i = lines.index(
        f"    public boolean acceptInstrument({ENGINE}.core.instrument.Instrument instrument) {{"
    )
    assert lines[i - 1] == "    @Override"
    assert lines[i + 1] == "  return super.acceptInstrument(instrument);"


# -- setup and windows ----------------------------------------------------------------------


def setup_body(source: str) -> list[str]:
    lines = java_lines(source)
    start = next(i for i, line in enumerate(lines) if "void setupIndicators(" in line)
    end = lines.index("}", start)
    return lines[start + 1 : end]


def test_setup_registers_auto_values_then_each_call_then_windows() -> None:
    body = setup_body(
        "strategy X\nparam fast = 9\nsetup:\n  ema(fast)\n  ema(21) window m1 { }\n"
        '  window price 900 { }\n  window ema21 Trend\n  sma("slow", 50) window Trend\n'
        "Trend { }\n"
    )
    assert body == [
        "indicators.addPrice();",
        "indicators.ema(fast);",
        "indicators.ema(21);",
        f"indicators.window({LAST}, {WT}.m1, new InlineWindow1(this, indicators, {LAST}));",
        'indicators.window("price", java.time.Duration.ofSeconds(900), '
        'new InlineWindow2(this, indicators, "price"));',
        f'indicators.window("ema21", {WT}.s1, new NamedWindow_Trend(this, indicators, "ema21"));',
        'indicators.sma("slow", 50);',
        f"indicators.window({LAST}, {WT}.s1, new NamedWindow_Trend(this, indicators, {LAST}));",
    ]


@pytest.mark.parametrize(
    "call",
    [
        "rsi(14)",
        "sma(p * 2)",
        'ema("fast", 9)',
        "bollinger(20, 2)",
        "bollinger(p, k)",
        'percentChange("price")',
        'clamp("price", 0, 1)',
        "addPrice()",
        "custom(nameParam, 3)",
    ],
)
def test_postfix_window_watches_the_name_its_call_registered(call: str) -> None:
    body = setup_body(
        f'strategy X\nparam p = 7\nparam k = 1.5\nparam nameParam = "n"\nsetup:\n'
        f"  {call} window m1 {{ }}\n"
    )
    assert body[-2:] == [
        f"indicators.{call};",
        f"indicators.window({LAST}, {WT}.m1, new InlineWindow1(this, indicators, {LAST}));",
    ]


@pytest.mark.parametrize(
    ("header", "primary"),
    [("strategy X", "price"), ("strategy X kline", "price"), ("strategy X funding", "rate")],
)
def test_unreferenced_main_watches_the_primary_value(header: str, primary: str) -> None:
    body = setup_body(f"{header}\nMain m5 {{\n}}\n")
    assert body[-1] == (
        f'indicators.window("{primary}", {WT}.m5, new NamedWindow_Main(this, indicators, '
        f'"{primary}"));'
    )


def test_referenced_main_is_only_attached_where_referenced() -> None:
    body = setup_body("strategy X\nsetup:\n  ema(5) window Main\nMain s10 { }\n")
    assert body[-2:] == [
        "indicators.ema(5);",
        f"indicators.window({LAST}, {WT}.s10, new NamedWindow_Main(this, indicators, {LAST}));",
    ]


@pytest.mark.parametrize(
    ("header", "registrations", "values"),
    [
        ("strategy X", ["indicators.addPrice();"], ["price"]),
        (
            "strategy X kline",
            ["indicators.addPrice();"]
            + [
                f'indicators.add("{v}", {ENGINE}.strategy.TickerValueSource.{v.capitalize()});'
                for v in ("open", "high", "low", "close", "volume")
            ],
            ["price", "open", "high", "low", "close", "volume"],
        ),
        ("strategy X funding", ["indicators.addRate();"], ["rate"]),
    ],
)
def test_value_indicators_and_body_variables_per_source(
    header: str, registrations: list[str], values: list[str]
) -> None:
    source = f'{header}\nMain {{\n  emitInfo("x", 1);\n}}\n'
    assert setup_body(source)[: len(registrations)] == registrations
    lines = java_lines(source)
    i = lines.index(
        f"public void onChange({ENGINE}.core.state.StateStore store, double prev, double actual) {{"
    )
    declared = [f'double {v} = indicators.getValue("{v}");' for v in values]
    assert lines[i + 1 : i + 1 + len(values)] == declared
    assert lines[i + 1 + len(values)] == 'emitInfo("x", 1);'


def test_listener_class_shape() -> None:
    lines = java_lines("strategy S\nsetup:\n  window price m1 {\n    emitBuy(price);\n  }\n")
    i = lines.index(
        f"final class InlineWindow1 extends {ENGINE}.strategy.AbstractWindowListener {{"
    )
    group = f"{ENGINE}.indicators.helpers.group.InstrumentGroupRTIndicator"
    assert lines[i + 1 : i + 7] == [
        "private final String $indicator;",
        "",
        f"InlineWindow1(S strategy, {group} indicators, String $indicator) {{",
        "super(strategy, indicators);",
        "this.$indicator = $indicator;",
        "}",
    ]
    assert "private double value(String name) {" in lines
    assert "return indicators.getValue(name);" in lines


def test_on_command_makes_the_class_a_command_handler() -> None:
    source = compile_qtscript("strategy X\nparam n = 1\nonCommand {\n  n = 2;\n}\n").java_source
    assert "implements com.wualabs.qtsurfer.engine.strategy.CommandRequestHandler {" in source
    assert "public void onCommand(com.wualabs.qtsurfer.engine.strategy.CommandRequest" in source
    assert "qts$onCommand(qts$request.getCommand());" in source
    assert "void qts$onCommand(String $command) {" in source
    assert "\n  n = 2;\n" in source


def test_without_on_command_the_class_takes_no_commands() -> None:
    source = compile_qtscript("strategy X\nparam n = 1\n").java_source
    assert "CommandRequestHandler" not in source
    assert "onCommand" not in source


def test_body_lines_keep_their_columns() -> None:
    gen = compile_qtscript("strategy X\nsetup:\n\tema(3) window m1 { emitBuy(price); }\n")
    assert "\n\t" + " " * 19 + "emitBuy(price);\n" in gen.java_source


# -- warnings and determinism ----------------------------------------------------------------


def test_warnings_for_param_assigned_in_init_and_unused_section() -> None:
    gen = compile_qtscript(
        "strategy X\nparam gain = 0.5\ninit {\n  setPercentGain(gain);\n  gain = 2;\n"
        "  this.gain *= 2;\n  ++gain;\n  double g = gain; int gain2 = 1;\n  if (gain == 1) {}\n}\n"
        "Unused m1 { }\n"
    )
    assert [(w.line, w.column) for w in gen.warnings] == [(5, 3), (6, 8), (7, 5), (11, 1)]
    assert "param 'gain' is assigned in init" in gen.warnings[0].message
    assert "section 'Unused' is never attached" in gen.warnings[3].message


def test_local_declaration_shadowing_a_param_is_not_an_assignment() -> None:
    gen = compile_qtscript("strategy X\nparam gain = 1\ninit {\n  int gain = 3;\n}\n")
    assert gen.warnings == []


def test_generation_is_deterministic() -> None:
    source = (
        'strategy "D"\nparam a = 1\nparam b = "x"\ninstruments ~"^A/B$", */usdt\n'
        "setup:\n  ema(a) window W\n  window price W\n  rsi(3) window { }\nW m1 { }\nMain { }\n"
    )
    first = compile_qtscript(source)
    for _ in range(3):
        again = compile_qtscript(source)
        assert again.java_source == first.java_source
        assert again.line_map == first.line_map
