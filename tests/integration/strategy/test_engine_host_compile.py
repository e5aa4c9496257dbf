"""Engine host compile path against a real JVM: diagnostics, main class, canonical form."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.services import requires_java

from backtestd.strategy.jvm import EngineHost, HostConfig, locate_engine_jar

pytestmark = requires_java

BASE = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

/** A strategy used to probe the canonical form. */
public class Probe extends AbstractTickerStrategy {
    @StrategyProperty(name = "threshold", description = "relative move", defaultValue = "0.5")
    private double threshold = 0.5;
    private int seen;

    public Probe() {
        seen = 0;
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
        double price = ticker.last();
        seen++;
        if (price > threshold) {
            emitBuy(ticker.instrument(), price);
        }
    }
}
"""


def _jar() -> Path:
    return locate_engine_jar()


@pytest.fixture(scope="module")
def host() -> Iterator[EngineHost]:
    with EngineHost(HostConfig(jar=_jar(), heap_mb=256)) as engine:
        yield engine


def test_compile_valid_strategy_returns_classes_main_class_and_properties(host: EngineHost) -> None:
    result = host.compile(BASE)

    assert result.ok, [d.render() for d in result.diagnostics]
    assert result.main_class == "demo.Probe"
    assert "demo.Probe" in result.class_files
    assert result.class_files["demo.Probe"][:4] == b"\xca\xfe\xba\xbe"
    assert [p.name for p in result.declared_properties] == ["threshold"]
    assert result.declared_properties[0].default_value == "0.5"
    assert "Ticker" in result.required_sources
    assert result.canonical_form is not None
    assert result.canonical_digest is not None
    assert len(result.canonical_digest) == 64


def test_compile_inner_and_anonymous_classes_are_all_returned(host: EngineHost) -> None:
    source = BASE.replace(
        "    private int seen;\n",
        "    private int seen;\n"
        "    private final Runnable tick = new Runnable() { public void run() { seen++; } };\n"
        "    static final class Helper { int twice(int v) { return 2 * v; } }\n",
    )

    result = host.compile(source)

    assert result.ok, [d.render() for d in result.diagnostics]
    assert {"demo.Probe", "demo.Probe$1", "demo.Probe$Helper"} <= set(result.class_files)


def test_compile_type_error_reports_line_and_column(host: EngineHost) -> None:
    source = BASE.replace("        double price = ticker.last();", '        int price = "x";')

    result = host.compile(source)

    assert not result.ok
    errors = result.errors
    assert errors, result.diagnostics
    first = errors[0]
    assert first.line == 31
    assert first.column == 21
    assert "incompatible types" in first.message
    assert first.render().startswith("Line 31, Column 21: ")


def test_compile_unknown_symbol_reports_its_line(host: EngineHost) -> None:
    source = BASE.replace("        seen++;", "        seenn++;")

    result = host.compile(source)

    assert not result.ok
    assert result.errors[0].line == 32
    assert "cannot find symbol" in result.errors[0].message


def test_compile_class_without_strategy_base_is_an_error(host: EngineHost) -> None:
    result = host.compile("package demo;\npublic class Plain {\n    int x;\n}\n")

    assert not result.ok
    assert result.errors[0].line == 2
    assert "does not extend a strategy base class" in result.errors[0].message


def test_compile_without_public_class_is_an_error(host: EngineHost) -> None:
    result = host.compile(BASE.replace("public class Probe", "class Probe"))

    assert not result.ok
    assert "no public top-level class" in result.errors[0].message


def test_compile_abstract_strategy_is_an_error(host: EngineHost) -> None:
    result = host.compile(BASE.replace("public class Probe", "public abstract class Probe"))

    assert not result.ok
    assert "abstract" in result.errors[0].message


def test_compile_expected_class_name_mismatch_is_an_error(host: EngineHost) -> None:
    result = host.compile(BASE, class_name="demo.Other")

    assert not result.ok
    assert "expected the strategy class demo.Other" in result.errors[0].message


def test_compile_stack_trace_file_is_named_after_public_class(host: EngineHost) -> None:
    result = host.compile(BASE)

    assert b"Probe.java" in result.class_files["demo.Probe"]


# -- canonical form (strategy-api §18) ---------------------------------------------------------


def _canonical(host: EngineHost, source: str) -> str:
    result = host.compile(source)
    assert result.ok, [d.render() for d in result.diagnostics]
    assert result.canonical_form is not None
    return result.canonical_form


def _swap(text: str, first: str, second: str) -> str:
    assert first in text
    assert second in text
    marker = "\u0000"
    return text.replace(first, marker).replace(second, first).replace(marker, second)


UPDATE_METHOD = BASE[BASE.index("    @Override\n    public void update") : BASE.rindex("}")]
ACCEPT_METHOD = BASE[
    BASE.index("    @Override\n    public boolean accept") : BASE.index(
        "    @Override\n    protected void setupIndicators"
    )
]
CONSTRUCTOR = BASE[
    BASE.index("    public Probe() {") : BASE.index("    @Override\n    public boolean")
]


def test_canonical_form_ignores_comments_and_formatting(host: EngineHost) -> None:
    reformatted = "// leading comment\n" + BASE.replace("    ", "\t").replace(
        " {\n", "\n{\n"
    ).replace("        seen++;", "        /* count */ seen ++ ;  // trailing").replace(
        "\n\n", "\n\n\n"
    )

    assert _canonical(host, reformatted) == _canonical(host, BASE)


def test_canonical_form_ignores_import_order(host: EngineHost) -> None:
    reordered = _swap(
        BASE,
        "import com.wualabs.qtsurfer.engine.core.Ticker;",
        "import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;",
    )

    assert _canonical(host, reordered) == _canonical(host, BASE)


def test_canonical_form_ignores_method_and_constructor_order(host: EngineHost) -> None:
    moved = BASE.replace(UPDATE_METHOD, "").replace(CONSTRUCTOR, "")
    moved = moved.replace(ACCEPT_METHOD, UPDATE_METHOD + "\n" + ACCEPT_METHOD + CONSTRUCTOR)

    assert moved != BASE
    assert _canonical(host, moved) == _canonical(host, BASE)


@pytest.mark.parametrize(
    ("label", "old", "new"),
    [
        (
            "renamed local",
            "double price = ticker.last();\n        seen++;\n        if (price > "
            "threshold) {\n            emitBuy(ticker.instrument(), price);",
            "double value = ticker.last();\n        seen++;\n        if (value > "
            "threshold) {\n            emitBuy(ticker.instrument(), value);",
        ),
        ("identifier case", "private int seen;", "private int Seen;"),
    ],
)
def test_canonical_form_changes_with_identifiers(
    host: EngineHost, label: str, old: str, new: str
) -> None:
    changed = BASE.replace(old, new)
    if label == "identifier case":
        changed = changed.replace("seen = 0;", "Seen = 0;").replace("seen++;", "Seen++;")

    assert changed != BASE
    assert _canonical(host, changed) != _canonical(host, BASE)


def test_canonical_form_changes_with_field_order(host: EngineHost) -> None:
    fields = (
        '    @StrategyProperty(name = "threshold", description = "relative move", '
        'defaultValue = "0.5")\n    private double threshold = 0.5;\n'
    )
    reordered = BASE.replace(fields, "").replace(
        "    private int seen;\n", "    private int seen;\n" + fields
    )

    assert reordered != BASE
    assert _canonical(host, reordered) != _canonical(host, BASE)


def test_canonical_form_changes_with_statement_order(host: EngineHost) -> None:
    reordered = _swap(BASE, "        double price = ticker.last();", "        seen++;")

    assert _canonical(host, reordered) != _canonical(host, BASE)


def test_canonical_form_is_returned_for_sources_that_parse_but_do_not_compile(
    host: EngineHost,
) -> None:
    result = host.compile(BASE.replace("seen++;", "missing++;"))

    assert not result.ok
    assert result.canonical_form is not None
