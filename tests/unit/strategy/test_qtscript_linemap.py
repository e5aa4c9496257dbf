"""Generated Java positions map back to the QTScript text (javac diagnostics, stack traces)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.strategy.qtscript import (
    GeneratedJava,
    LineMap,
    LineOrigin,
    compile_qtscript,
    runtime_line,
    translate_java_diagnostic,
)
from backtestd.strategy.qtscript.linemap import javac_to_char_column

SOURCE = """\
// comment before the header
strategy "Mapped"

param fast = 9 "Fast"

init { setPercentGain(0.5); }

setup:
  ema(fast) window m1 {
    int x = "oops";
\tdouble y = value("ema" + fast);	emitBuy(price);
  }
  window price Trend

Trend s5 {
  store.inc("n");
}
"""


def javac_column(line: str, char_column: int) -> int:
    """javac's column for a 1-based character column (tabs to multiples of 8, UTF-16 units)."""
    visual = 0
    for ch in line[: char_column - 1]:
        visual = (visual // 8 + 1) * 8 if ch == "\t" else visual + (2 if ord(ch) > 0xFFFF else 1)
    return visual + 1


def java_position(gen: GeneratedJava, needle: str) -> tuple[int, int]:
    """(line, javac column) of the only occurrence of ``needle`` in the generated Java."""
    hits = [
        (n, line.index(needle) + 1)
        for n, line in enumerate(gen.java_source.splitlines(), start=1)
        if needle in line
    ]
    assert len(hits) == 1, hits
    n, char_column = hits[0]
    return n, javac_column(gen.line_map.java_lines[n - 1], char_column)


def qts_position(source: str, needle: str) -> tuple[int, int]:
    hits = [
        (n, line.index(needle) + 1)
        for n, line in enumerate(source.splitlines(), start=1)
        if needle in line
    ]
    assert len(hits) == 1, hits
    return hits[0]


def test_documented_example_string_to_int_maps_to_line_and_column() -> None:
    gen = compile_qtscript(SOURCE)
    line, column = java_position(gen, '"oops"')
    message = "incompatible types: java.lang.String cannot be converted to int"
    assert translate_java_diagnostic(gen, line, column, message) == (
        f"Line 10, Column 13: {message}"
    )


def test_body_tokens_round_trip_with_tabs() -> None:
    gen = compile_qtscript(SOURCE)
    for needle in ["double y", 'value("ema"', "emitBuy(price)", "setPercentGain", 'store.inc("n")']:
        java_line, column = java_position(gen, needle)
        assert gen.line_map.to_qts(java_line, column) == qts_position(SOURCE, needle), needle


def test_setup_call_maps_into_the_call_text() -> None:
    gen = compile_qtscript(SOURCE)
    java_line, column = java_position(gen, "indicators.ema(fast)")
    # javac puts "cannot find symbol" for a method on the '.', before the copied call text
    assert gen.line_map.to_qts(java_line, column + len("indicators")) == (9, 3)
    assert gen.line_map.to_qts(java_line, column + len("indicators.ema(")) == (9, 7)
    # "';' expected" would point just after the call
    assert gen.line_map.to_qts(java_line, column + len("indicators.ema(fast)")) == (9, 12)


def test_scaffolding_lines_map_to_the_construct_that_produced_them() -> None:
    gen = compile_qtscript(SOURCE)
    field_line, _ = java_position(gen, "public int fast = 9;")
    assert gen.line_map.to_qts(field_line, 5) == (4, 7)
    window_line, _ = java_position(gen, "new InlineWindow1(")
    assert gen.line_map.to_qts(window_line, 30) == (9, 13)
    trend_line, _ = java_position(gen, "new NamedWindow_Trend(")
    assert gen.line_map.to_qts(trend_line, 1) == (13, 3)
    class_line, _ = java_position(gen, "public class Mapped")
    assert gen.line_map.to_qts(class_line, 1) == (2, 1)


def test_positions_outside_the_class_fall_back_to_the_header() -> None:
    gen = compile_qtscript(SOURCE)
    import_line, _ = java_position(gen, "import java.util.*;")
    assert gen.line_map.to_qts(import_line, 1) is None
    assert translate_java_diagnostic(gen, import_line, 1, "m") == "Line 2, Column 1: m"
    assert translate_java_diagnostic(gen, 10_000, 1, "m") == "Line 2, Column 1: m"
    assert translate_java_diagnostic(gen, 0, -1, "m") == "Line 2, Column 1: m"


def test_unknown_column_maps_to_the_line_anchor() -> None:
    gen = compile_qtscript(SOURCE)
    java_line, _ = java_position(gen, '"oops"')
    assert gen.line_map.to_qts(java_line, -1) == (10, 1)


def test_runtime_line_for_stack_trace_lines() -> None:
    gen = compile_qtscript(SOURCE)
    java_line, _ = java_position(gen, 'store.inc("n")')
    assert runtime_line(gen, java_line) == 16
    prologues = [
        n
        for n, line in enumerate(gen.line_map.java_lines, start=1)
        if 'double price = indicators.getValue("price");' in line
    ]
    assert [runtime_line(gen, n) for n in prologues] == [9, 15]
    assert runtime_line(gen, 0) is None
    assert runtime_line(gen, len(gen.line_map.java_lines) + 1) is None
    import_line, _ = java_position(gen, "import java.util.*;")
    assert runtime_line(gen, import_line) is None


def test_javac_column_conversion() -> None:
    assert javac_to_char_column("abc", 2) == 2
    assert javac_to_char_column("\tx", 1) == 1
    assert javac_to_char_column("\tx", 9) == 2
    assert javac_to_char_column("ab\tx", 9) == 4
    assert javac_to_char_column("\U0001f600x", 3) == 2
    assert javac_to_char_column("ab", 5) == 5


def test_line_map_without_copied_text() -> None:
    line_map = LineMap(("x", "y"), (None, LineOrigin(3, 4)))
    assert line_map.to_qts(1, 1) is None
    assert line_map.to_qts(2, 99) == (3, 4)
    assert line_map.qts_line(2) == 3


_BODY_CHARS = st.text(
    alphabet=st.sampled_from(list("abc xyz=+;()\t\u00e9\U0001f600")), min_size=0, max_size=30
)


@settings(max_examples=60, deadline=None)
@given(
    lead=st.text(alphabet=" \t", min_size=1, max_size=4),
    lines=st.lists(_BODY_CHARS, min_size=1, max_size=4),
    tail=_BODY_CHARS,
)
def test_every_copied_character_maps_back_to_itself(lead: str, lines: list[str], tail: str) -> None:
    body = "\n".join(lines)
    source = f"strategy P\nsetup:\n{lead}ema(3) window m1 {{{tail}\n{body}\n{lead}}}\n"
    gen = compile_qtscript(source)
    qts_lines = source.split("\n")
    for java_number, java_line in enumerate(gen.line_map.java_lines, start=1):
        origin = gen.line_map.origin(java_number)
        if origin is None or origin.length == 0:
            continue
        for offset in range(origin.length):
            char_column = origin.java_start + offset
            mapped = gen.line_map.to_qts(java_number, javac_column(java_line, char_column))
            assert mapped is not None
            qts_line, qts_column = mapped
            assert qts_lines[qts_line - 1][qts_column - 1] == java_line[char_column - 1]
