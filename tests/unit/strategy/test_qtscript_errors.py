"""QTScript mistakes are compile errors at the exact line and column of the user's text, and
every error in a file is reported at once."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.strategy.qtscript import QtsCompileError, QtsDiagnostic, compile_qtscript


def errors_of(source: str) -> list[tuple[int, int, str]]:
    with pytest.raises(QtsCompileError) as info:
        compile_qtscript(source)
    return [(d.line, d.column, d.message) for d in info.value.diagnostics]


def assert_errors(source: str, expected: list[tuple[int, int, str]]) -> None:
    """Each expected entry is (line, column, a fragment of the message)."""
    found = errors_of(source)
    assert [(line, col) for line, col, _ in found] == [(line, col) for line, col, _ in expected]
    for (_, _, message), (_, _, fragment) in zip(found, expected, strict=True):
        assert fragment in message


def test_diagnostic_and_error_string_format() -> None:
    diag = QtsDiagnostic(5, 13, "incompatible types")
    assert str(diag) == "Line 5, Column 13: incompatible types"
    error = QtsCompileError([QtsDiagnostic(3, 1, "b"), QtsDiagnostic(1, 2, "a")])
    assert str(error) == "Line 1, Column 2: a\nLine 3, Column 1: b"
    assert [d.line for d in error.diagnostics] == [1, 3]


# -- header ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("", [(1, 1, "empty source")]),
        ("  \n// only a comment\n", [(3, 1, "empty source")]),
        ("param a = 1\nMain { }\n", [(1, 1, "missing strategy header")]),
        ("\n  // c\n  setup:\n", [(3, 3, "missing strategy header")]),
        ("public class X {}\n", [(1, 1, "missing strategy header")]),
        ("strategy\n", [(1, 9, "expected the strategy name")]),
        ("strategy 42\n", [(1, 10, "expected the strategy name")]),
        ('strategy ""\n', [(1, 10, "must not be empty")]),
        ('strategy "open\n', [(1, 10, "unterminated string")]),
        ("strategy X candles\n", [(1, 12, "unknown data source 'candles'")]),
        ("strategy X kline extra\n", [(1, 18, "unexpected 'extra' after the strategy header")]),
        (
            "strategy X\nstrategy Y\n",
            [(2, 1, "duplicate 'strategy' header (the header is on line 1)")],
        ),
        ("strategy X\nkline\n", [(2, 1, "only allowed in the header")]),
    ],
)
def test_header_errors(source: str, expected: list[tuple[int, int, str]]) -> None:
    assert_errors(source, expected)


# -- top level ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "strategy X\nsetpu:\n  ema(3)\n",
            [(2, 1, "unknown section 'setpu'"), (3, 3, "indentation")],
        ),
        ("strategy X\nTrend\n", [(2, 1, "unknown section 'Trend'")]),
        ("strategy X\nparamx = 3\n", [(2, 1, "unknown section 'paramx'")]),
        ("strategy X\n  param a = 1\n", [(2, 3, "unexpected indentation")]),
        ("strategy X\n\tMain { }\n", [(2, 2, "unexpected indentation")]),
        ("strategy X\n42\n", [(2, 1, "unexpected '42'")]),
        ("strategy X\n/* open\n", [(2, 1, "unterminated comment")]),
    ],
)
def test_top_level_errors(source: str, expected: list[tuple[int, int, str]]) -> None:
    assert_errors(source, expected)


# -- param ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column", "fragment"),
    [
        ("param a = 1.", 11, "malformed number '1.'"),
        ("param a = .5", 11, "malformed param value '.'"),
        ("param a = 1e5", 11, "malformed number '1e5'"),
        ("param a = 12abc", 11, "malformed number '12abc'"),
        ("param a = abc", 11, "malformed param value 'abc'"),
        ("param a = True", 11, "malformed param value 'True'"),
        ("param a = 'c'", 11, "malformed param value"),
        ("param a = - 3", 11, "'-' must be followed by a number"),
        ("param a = 2147483648", 11, "outside the int range"),
        ("param a = -2147483649", 11, "outside the int range"),
        ("param a = 1.0e999", 11, "too large for a double"),
        ("param a =", 10, "missing param value"),
        ('param a = "x\\q"', 13, "invalid escape '\\q'"),
        ('param a = "\\u12"', 12, "invalid unicode escape"),
        ('param a = "open', 11, "unterminated string"),
        ("param a 3", 9, "expected '=' after param 'a'"),
        ("param = 3", 7, "expected a param name"),
        ("param 3a = 3", 7, "expected a param name"),
        ('param a = 1 "d" extra', 17, "unexpected 'extra'"),
        ("param a = 1 2", 13, 'only an optional "description"'),
        ('param a = 1 "open', 13, "unterminated string"),
    ],
)
def test_malformed_param(line: str, column: int, fragment: str) -> None:
    assert_errors(f"strategy X\n{line}\n", [(2, column, fragment)])


@pytest.mark.parametrize(
    "name",
    [
        "strategy",
        "param",
        "instruments",
        "init",
        "setup",
        "window",
        "kline",
        "funding",
        "onCommand",
        "price",
        "actual",
        "store",
        "prev",
        "open",
        "high",
        "low",
        "close",
        "volume",
        "rate",
        "value",
        "indicators",
        "instrument",
        "percentGain",
        "executionMode",
        "multiEntryEnabled",
    ],
)
def test_reserved_param_names_name_the_line_and_the_reason(name: str) -> None:
    (error,) = errors_of(f"strategy X\n\nparam ok = 1\nparam {name} = 3\n")
    line, column, message = error
    assert (line, column) == (4, 7)
    assert f"'{name}' is reserved" in message
    assert "because" in message or ": it is" in message


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("int", "Java keyword"),
        ("class", "Java keyword"),
        ("null", "Java keyword"),
        ("$indicator", "starting with '$'"),
        ("$x", "starting with '$'"),
        ("qts$a", "prefix 'qts$'"),
    ],
)
def test_param_names_invalid_in_java(name: str, fragment: str) -> None:
    assert_errors(f"strategy X\nparam {name} = 1\n", [(2, 7, fragment)])


def test_duplicate_param() -> None:
    assert_errors(
        "strategy X\nparam a = 1\nparam b = 2\nparam a = 3\n",
        [(4, 7, "duplicate param 'a' (first declared on line 2)")],
    )


# -- init, sections, duplicates ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "strategy X\ninit\n{ }\n",
            [(2, 5, "expected '{' after 'init'"), (3, 1, "unexpected '{'")],
        ),
        ("strategy X\ninit { } x\n", [(2, 10, "unexpected 'x' after the init body")]),
        ("strategy X\ninit {\n", [(2, 6, "unclosed '{'")]),
        (
            "strategy X\ninit { }\ninit { }\n",
            [(3, 1, "duplicate 'init' section (the first is on line 2)")],
        ),
        ("strategy X\nsetup:\nsetup:\n", [(3, 1, "duplicate 'setup' section")]),
        ("strategy X\nonCommand { }\nonCommand { }\n", [(3, 1, "duplicate 'onCommand'")]),
        ("strategy X\nwindow m1 { }\n", [(2, 8, "'m1' is a period and cannot name a section")]),
        ("strategy X\ns5 { }\n", [(2, 1, "'s5' is a period")]),
        ("strategy X\nwindow { }\n", [(2, 8, "expected a section name")]),
        ("strategy X\nTrend m2 { }\n", [(2, 7, "bad period 'm2'")]),
        ("strategy X\nTrend 1s { }\n", [(2, 7, "bad period '1s'")]),
        ("strategy X\nwindow Trend 5m {\n  x();\n}\n", [(2, 14, "bad period '5m'")]),
        ("strategy X\nTrend 0 { }\n", [(2, 7, "at least 1 second")]),
        ("strategy X\nwindow Trend m1\n{ }\n", [(2, 16, "expected '{'"), (3, 1, "unexpected '{'")]),
        ("strategy X\nwindow Trend m1 { } ;\n", [(2, 21, "unexpected ';'")]),
        (
            "strategy X\nwindow T m1 { }\nT s5 { }\nsetup:\n  window price T\n",
            [(3, 1, "duplicate section 'T' (first declared on line 2)")],
        ),
        ("strategy X\nwindow init m1 { }\n", [(2, 8, "'init' is a keyword")]),
    ],
)
def test_section_errors(source: str, expected: list[tuple[int, int, str]]) -> None:
    assert_errors(source, expected)


def test_a_body_is_skipped_after_an_error_so_its_lines_do_not_cascade() -> None:
    source = "strategy X\nTrend m9 {\n  foo bar;\n}\nbaz\n"
    assert_errors(source, [(2, 7, "bad period 'm9'"), (5, 1, "unknown section 'baz'")])


# -- setup ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ("  ema(12)\n    ema(26)\n", [(4, 5, "bad indentation")]),
        ("  ema(12)\n\tema(26)\n", [(4, 2, "bad indentation")]),
        (
            "   ema(12)\n  ema(26)\n",
            [(4, 3, "indented by 2 spaces but the first one (line 3) by 3")],
        ),
        ("  ema(12);\n", [(3, 10, "remove the ';'")]),
        ("  ema(12).sma(3)\n", [(3, 10, "one builder call per line")]),
        ("  ema(12\n  , 3)\n", [(3, 6, "complete on one line"), (4, 3, "expected a builder call")]),
        ("  ema 12\n", [(3, 3, "expected a builder call")]),
        ("  42\n", [(3, 3, "expected a builder call")]),
        ("  ema(3) sma(4)\n", [(3, 10, "unexpected 'sma' after the call")]),
        ("  ema(3) window\n", [(3, 16, "expected a period, '{' or a section name")]),
        ("  ema(3) window m2 {\n  }\n", [(3, 17, "bad period 'm2'")]),
        ("  ema(3) window 1s { }\n", [(3, 17, "bad period '1s'")]),
        ("  ema(3) window 0 { }\n", [(3, 17, "at least 1 second")]),
        ("  ema(3) window m1\n", [(3, 19, "expected '{' after the period m1")]),
        ("  ema(3) window m1 Trend\nTrend { }\n", [(3, 17, "uses its own period")]),
        ("  ema(3) window Trend x\nTrend { }\n", [(3, 23, "unexpected 'x' after section name")]),
        ("  ema(3) window m1 {\n", [(3, 20, "unclosed '{'")]),
        ("  ema(3) window m1 { } x\n", [(3, 24, "unexpected 'x' after the window body")]),
        ("  window\n", [(3, 9, "expected the name of the indicator")]),
        ("  window 42 m1 { }\n", [(3, 10, "expected the name of the indicator")]),
        ("  window price\n", [(3, 15, "expected a period, '{' or a section name")]),
        ("  window price Nope\n", [(3, 16, "unknown section 'Nope'")]),
        ("  window price m2\n", [(3, 16, "unknown section 'm2'")]),
        ("  rsi(14) window Nope\n", [(3, 18, "unknown section 'Nope'")]),
    ],
)
def test_setup_errors(lines: str, expected: list[tuple[int, int, str]]) -> None:
    assert_errors(f"strategy X\nsetup:\n{lines}", expected)


def test_setup_colon_must_end_its_line() -> None:
    assert_errors("strategy X\nsetup: ema(3)\n", [(2, 8, "unexpected 'ema' after 'setup:'")])
    assert_errors("strategy X\nsetup\n", [(2, 6, "expected ':' after 'setup'")])


# -- instruments ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ("btc", [(2, 13, "malformed pair 'btc'")]),
        ("btc/", [(2, 17, "is not a currency code")]),
        ("btc/usdt/eth", [(2, 13, "malformed pair 'btc/usdt/eth'")]),
        ("b-c/usdt", [(2, 13, "'b-c' is not a currency code")]),
        ("btc/us_dt", [(2, 17, "'us_dt' is not a currency code")]),
        ("bt*/usdt", [(2, 13, "partial wildcards")]),
        ("*btc/usdt", [(2, 13, "partial wildcards")]),
        ("btc/usdt:usdt", [(2, 21, "settle currency inside a pair is not supported")]),
        ("btc/usdt,", [(2, 21, "stray comma: no entry follows it")]),
        (", btc/usdt", [(2, 13, "stray comma: expected an entry before it")]),
        ("btc/usdt,, eth/usdt", [(2, 22, "stray comma")]),
        ("btc/usdt eth/usdt", [(2, 22, "expected ',' between entries")]),
        (
            "btc/usdt, BTC/usdt",
            [(2, 23, "duplicate entry 'BTC/USDT' (already listed at column 13)")],
        ),
        ('~"^A$", ~"^A$"', [(2, 21, "duplicate entry")]),
        ('~"(unclosed"', [(2, 15, "invalid regular expression")]),
        ('~"ab[c"', [(2, 17, "invalid regular expression")]),
        ("~btc", [(2, 14, "expected a \"quoted regular expression\" after '~'")]),
        ('~"open', [(2, 14, "unterminated string")]),
        ("!btc/usdt", [(2, 13, "exclusions are not supported")]),
        ("*, btc/usdt", [(2, 13, "cannot be combined")]),
        ("", [(2, 13, "expected an instrument list")]),
        ("abcdefghijklmnopqrstuvwxyz/usdt", [(2, 13, "longer than 20")]),
    ],
)
def test_instrument_list_errors(entries: str, expected: list[tuple[int, int, str]]) -> None:
    assert_errors(f"strategy X\ninstruments {entries}\n", expected)


def test_java_only_regex_syntax_is_accepted_and_reaches_java_unchanged() -> None:
    patterns = ["^\\p{Upper}+/USDT$", "^(?<b>[A-Z]+)/\\k<b>$"]
    listed = ", ".join(f'~"{p}"' for p in patterns)

    generated = compile_qtscript(f"strategy X\ninstruments {listed}\n")

    literals = re.findall(r'Pattern\.compile\("((?:[^"\\]|\\.)*)"\)', generated.java_source)
    unescaped = [re.sub(r"\\(.)", r"\1", literal) for literal in literals]
    assert unescaped == patterns


def test_duplicate_instruments_section() -> None:
    assert_errors(
        "strategy X\ninstruments */usdt\ninstruments { return true; }\n",
        [(3, 1, "duplicate 'instruments' section (the first is on line 2)")],
    )


# -- several errors at once -----------------------------------------------------------------


def test_all_errors_are_reported_in_one_pass_sorted_by_position() -> None:
    source = (
        "strategy X\n"  # 1
        "param price = 1\n"  # 2
        "param a = 1.\n"  # 3
        "setpu:\n"  # 4
        "instruments btc\n"  # 5
        "setup:\n"  # 6
        "  ema(3);\n"  # 7
        "    ema(4)\n"  # 8
        "  rsi(14) window m2 {\n"  # 9
        "  }\n"  # 10
        "  window price Missing\n"  # 11
        "Trend 1m {\n"  # 12
        "}\n"  # 13
    )
    found = [(line, col) for line, col, _ in errors_of(source)]
    assert found == [(2, 7), (3, 11), (4, 1), (5, 13), (7, 9), (8, 5), (9, 18), (11, 16), (12, 7)]


# -- robustness -----------------------------------------------------------------------------

_FRAGMENTS = [
    "strategy",
    " X",
    ' "T"',
    " kline",
    "\n",
    "  ",
    "\t",
    "param",
    " a",
    " = ",
    "1",
    "1.5",
    "-",
    '"s"',
    '"\\q"',
    "init",
    "instruments",
    " */usdt",
    ",",
    ' ~"(" ',
    "setup",
    ":",
    "ema(3)",
    "(",
    ")",
    "window",
    " m1",
    " 900",
    " 1s",
    " Trend",
    " {",
    "}",
    " { x; }",
    "Main",
    "//c",
    "/*",
    "*/",
    "'",
    '"',
    ";",
    "onCommand",
    "\r\n",
    "\ufeff",
    "$",
    "é",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40))
def test_any_input_compiles_or_raises_a_compile_error(fragments: list[str]) -> None:
    source = "".join(fragments)
    diagnostics: list[QtsDiagnostic] = []
    try:
        gen = compile_qtscript(source)
    except QtsCompileError as exc:
        diagnostics = exc.diagnostics
    else:
        assert gen.java_source.endswith("}\n")
        return
    assert diagnostics
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for diag in diagnostics:
        assert 1 <= diag.line <= len(lines)
        assert 1 <= diag.column <= len(lines[diag.line - 1]) + 2


@pytest.mark.parametrize(
    "text",
    [
        "strategy Smuggle\n  // harmless \\u000a Runtime.getRuntime().exit(0);\n",
        "strategy Smuggle\n  /* \\uuu000a */\n",
        "strategy Smuggle\n  // don't \\u000a Runtime.getRuntime().exit(0);\n",
        "strategy Smuggle\n  /* a comment\n   \\u000a over lines */\n",
    ],
)
def test_unicode_escapes_cannot_reach_javac(text: str) -> None:
    """javac decodes backslash-u before comments and strings exist; QTScript refuses them."""
    with pytest.raises(QtsCompileError) as caught:
        compile_qtscript(text)
    assert "Line 2" in str(caught.value) or "Line 3" in str(caught.value)
    assert "unicode escapes" in str(caught.value)


def test_an_escaped_backslash_before_u_is_not_an_escape() -> None:
    from backtestd.strategy.qtscript.compiler import _refuse_unicode_escapes
    from backtestd.strategy.qtscript.errors import DiagnosticSink

    sink = DiagnosticSink()
    _refuse_unicode_escapes("// a\\\\u000a stays text", sink)
    sink.raise_if_errors()
