"""Parsing every QTScript construct of spec §17 into the syntax tree."""

from __future__ import annotations

import pytest

from backtestd.domain.marketdata import DataType
from backtestd.strategy.qtscript import compile_qtscript
from backtestd.strategy.qtscript.errors import DiagnosticSink
from backtestd.strategy.qtscript.nodes import (
    InlineWindow,
    InstrumentList,
    InstrumentNative,
    PairEntry,
    Period,
    Pos,
    Program,
    RegexEntry,
    SectionRef,
    SetupCall,
    SetupWindow,
)
from backtestd.strategy.qtscript.parser import parse_program


def parse_ok(source: str) -> Program:
    sink = DiagnosticSink()
    program, _ = parse_program(source, sink)
    assert sink.errors == []
    return program


def body(source: str, program_block_open: int, program_block_close: int) -> str:
    return source[program_block_open + 1 : program_block_close]


# -- header ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "name", "quoted", "kind"),
    [
        ('strategy "RSI reversion"\n', "RSI reversion", True, DataType.TICKER),
        ("strategy Reversion\n", "Reversion", False, DataType.TICKER),
        ("strategy Bars kline\n", "Bars", False, DataType.KLINE),
        ('strategy "Rates" funding   // funding rates\n', "Rates", True, DataType.FUNDING),
        ("strategy Explicit ticker\n", "Explicit", False, DataType.TICKER),
        ('strategy "Tab\\tand \\"quotes\\""\n', 'Tab\tand "quotes"', True, DataType.TICKER),
        ("strategy X", "X", False, DataType.TICKER),
    ],
)
def test_header_forms(source: str, name: str, quoted: bool, kind: DataType) -> None:
    header = parse_ok(source).header
    assert header is not None
    assert (header.name, header.quoted, header.source) == (name, quoted, kind)


def test_header_after_comments_bom_and_whitespace() -> None:
    program = parse_ok("\ufeff// lead\n/* block\n comment */\n\n  strategy X kline\n")
    assert program.header is not None
    assert program.header.pos == Pos(5, 3)
    assert program.header.source is DataType.KLINE


def test_crlf_and_trailing_whitespace_are_insignificant() -> None:
    lf = 'strategy X\nparam a = 1 "d"\nsetup:\n  ema(a) window m1 {\n    emitBuy(price);\n  }\n'
    crlf = lf.replace("\n", "  \r\n")
    bom = "\ufeff" + lf.replace("\n", "\t\r")
    assert parse_ok(lf).params == parse_ok(crlf).params == parse_ok(bom).params
    assert compile_qtscript(lf).java_source == compile_qtscript(crlf).java_source
    assert compile_qtscript(lf).java_source == compile_qtscript(bom).java_source


# -- param ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "java_type", "default", "literal", "description"),
    [
        ('param rsiLow  = 30  "Oversold"', "int", "30", "30", "Oversold"),
        ("param ratio = 0.5", "double", "0.5", "0.5", None),
        ('param tiny = 1.5e-3 "exp"', "double", "1.5e-3", "1.5e-3", "exp"),
        ("param useVol = true", "boolean", "true", "true", None),
        ("param off = false // trailing comment", "boolean", "false", "false", None),
        ('param tag = "a \\"b\\"\\n" "desc"', "String", 'a "b"\n', '"a \\"b\\"\\n"', "desc"),
        ("param neg = -3", "int", "-3", "-3", None),
        ("param negd = -0.25", "double", "-0.25", "-0.25", None),
        ("param big = 2147483647", "int", "2147483647", "2147483647", None),
        ('param u = "\\u00e9t\\u00e9"', "String", "été", '"\\u00e9t\\u00e9"', None),
        ('param e = ""', "String", "", '""', None),
    ],
)
def test_param_literals_decide_the_type(
    line: str, java_type: str, default: str, literal: str, description: str | None
) -> None:
    (param,) = parse_ok(f"strategy X\n{line}\n").params
    assert (param.java_type, param.default, param.literal, param.description) == (
        java_type,
        default,
        literal,
        description,
    )
    assert (param.line, param.column) == (2, 7)


# -- init and instruments -------------------------------------------------------------------


def test_init_block_spans_lines_and_skips_braces_in_strings_and_comments() -> None:
    source = (
        "strategy X\ninit {\n  String s = \"}\"; char c = '}'; // }\n  /* } */\n"
        "  setPercentGain(0.5);\n}\n"
    )
    program = parse_ok(source)
    assert program.init is not None
    text = body(source, program.init.block.open, program.init.block.close)
    assert "setPercentGain(0.5);" in text
    assert program.init.pos == Pos(2, 1)


def test_init_on_one_line() -> None:
    source = "strategy X\ninit { setMultiEntryEnabled(true); }\n"
    program = parse_ok(source)
    assert program.init is not None
    assert body(source, program.init.block.open, program.init.block.close).strip() == (
        "setMultiEntryEnabled(true);"
    )


def test_instruments_declarative_list() -> None:
    program = parse_ok(
        'strategy X\ninstruments btc/usdt, eth/*, ~"^SOL/(USDT|USDC)$", */usdt   // list\n'
    )
    node = program.instruments
    assert isinstance(node, InstrumentList)
    assert node.entries == (
        PairEntry("BTC", "USDT", Pos(2, 13)),
        PairEntry("ETH", None, Pos(2, 23)),
        RegexEntry("^SOL/(USDT|USDC)$", Pos(2, 30)),
        PairEntry(None, "USDT", Pos(2, 52)),
    )


def test_instruments_star_means_no_narrowing() -> None:
    node = parse_ok("strategy X\ninstruments *\n").instruments
    assert isinstance(node, InstrumentList)
    assert node.entries == ()


def test_instruments_regex_text_is_raw() -> None:
    node = parse_ok('strategy X\ninstruments ~"^\\w+/USDT:USDT$", 1000pepe/usdt\n').instruments
    assert isinstance(node, InstrumentList)
    assert node.entries[0] == RegexEntry("^\\w+/USDT:USDT$", Pos(2, 13))
    assert node.entries[1] == PairEntry("1000PEPE", "USDT", Pos(2, 33))


def test_instruments_native_form() -> None:
    source = 'strategy X\ninstruments {\n  return instrument.quote().equals("USDT");\n}\n'
    node = parse_ok(source).instruments
    assert isinstance(node, InstrumentNative)
    assert "return instrument" in body(source, node.block.open, node.block.close)


# -- setup and the five window forms ---------------------------------------------------------


FIVE_FORMS = """strategy "Five forms"

setup:
  rsi(14) window m1 {
    emitBuy(price);
  }
  rsi(33) window Oversold
  window price m5 { emitSell(price); }
  window ema12 Trend
  ema(12)
  sma(20) window 900 {
  }
  ema(9) window { }

window Oversold m1 {
  emitBuy(price);
}

Trend s5 { store.set("x"); }
"""


def test_setup_lines_and_window_forms_1_to_4() -> None:
    program = parse_ok(FIVE_FORMS)
    assert program.setup is not None
    lines = program.setup.lines
    assert [type(line).__name__ for line in lines] == [
        "SetupCall",
        "SetupCall",
        "SetupWindow",
        "SetupWindow",
        "SetupCall",
        "SetupCall",
        "SetupCall",
    ]
    form1, form2, form3, form4, plain, seconds, default = lines
    assert isinstance(form1, SetupCall)
    assert isinstance(form1.window, InlineWindow)
    assert (form1.method, form1.text, form1.pos) == ("rsi", "rsi(14)", Pos(4, 3))
    assert form1.window.period == Period("m1", None, Pos(4, 18))
    assert isinstance(form2, SetupCall)
    assert form2.window == SectionRef("Oversold", Pos(7, 18))
    assert isinstance(form3, SetupWindow)
    assert form3.indicator == "price"
    assert isinstance(form3.target, InlineWindow)
    assert form3.target.period == Period("m5", None, Pos(8, 16))
    assert isinstance(form4, SetupWindow)
    assert (form4.indicator, form4.target) == ("ema12", SectionRef("Trend", Pos(9, 16)))
    assert isinstance(plain, SetupCall)
    assert plain.window is None
    assert isinstance(seconds, SetupCall)
    assert isinstance(seconds.window, InlineWindow)
    assert seconds.window.period == Period(None, 900, Pos(11, 18))
    assert isinstance(default, SetupCall)
    assert isinstance(default.window, InlineWindow)
    assert default.window.period is None


def test_named_sections_form_5_with_and_without_keyword() -> None:
    sections = parse_ok(FIVE_FORMS).sections
    assert [(s.name, s.period, s.pos) for s in sections] == [
        ("Oversold", Period("m1", None, Pos(15, 17)), Pos(15, 8)),
        ("Trend", Period("s5", None, Pos(19, 7)), Pos(19, 1)),
    ]


def test_setup_call_arguments_split_at_top_level_commas() -> None:
    program = parse_ok(
        'strategy X\nsetup:\n  fun("r", "a", "b", (a, b) -> a / b)\n'
        '  distance("d, e", "ema12", "ema26")\n'
    )
    assert program.setup is not None
    fun, distance = program.setup.lines
    assert isinstance(fun, SetupCall)
    assert isinstance(distance, SetupCall)
    assert [a.text for a in fun.args] == ['"r"', '"a"', '"b"', "(a, b) -> a / b"]
    assert fun.args[3].pos == Pos(3, 22)
    assert [a.text for a in distance.args] == ['"d, e"', '"ema12"', '"ema26"']


def test_setup_ends_at_first_column_1_line_and_skips_blank_and_comment_lines() -> None:
    program = parse_ok(
        "strategy X\nsetup:\n  ema(3)\n\n// a column-1 comment\n   \n  ema(4)\nparam p = 1\n"
    )
    assert program.setup is not None
    assert [line.text for line in program.setup.lines if isinstance(line, SetupCall)] == [
        "ema(3)",
        "ema(4)",
    ]
    assert [p.name for p in program.params] == ["p"]


def test_setup_with_tab_indentation() -> None:
    program = parse_ok("strategy X\nsetup:\n\tema(3)\n\tema(4) window m1 {\n\t}\n")
    assert program.setup is not None
    assert len(program.setup.lines) == 2


def test_inline_body_may_close_in_column_1_and_setup_continues() -> None:
    program = parse_ok("strategy X\nsetup:\n  ema(3) window m1 {\n  emitBuy(price);\n}\n  ema(4)\n")
    assert program.setup is not None
    assert len(program.setup.lines) == 2


def test_by_name_window_accepts_a_quoted_indicator_name() -> None:
    program = parse_ok('strategy X\nsetup:\n  window "dist.ema" m1 { }\n')
    assert program.setup is not None
    (line,) = program.setup.lines
    assert isinstance(line, SetupWindow)
    assert line.indicator == "dist.ema"


def test_main_section_and_shortest_file() -> None:
    program = parse_ok("strategy Simple\n\nMain m1 {\n  if (actual > prev) emitBuy(price);\n}\n")
    assert [s.name for s in program.sections] == ["Main"]
    assert program.setup is None


def test_sections_in_any_order() -> None:
    program = parse_ok(
        "strategy X\nMain { }\nsetup:\n  ema(3)\ninit { }\nparam a = 1\ninstruments */usdt\n"
    )
    assert program.init is not None
    assert program.instruments is not None
    assert [p.name for p in program.params] == ["a"]


def test_on_command_is_parsed() -> None:
    program = parse_ok("strategy X\nparam n = 1\nonCommand {\n  n = 2;\n}\n")
    assert program.on_command is not None
    assert program.on_command.pos == Pos(3, 1)
